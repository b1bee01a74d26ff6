"""The admin's defaults for every model: ids and dates taken from the request are checked before they reach the database.

Django's admin hands some request values to a query unchecked: the ticked rows of a list
action, the value of an autocomplete field shown again (from `?user=` or a refused form), and
the year, month and day of a date drill-down. A value the database column cannot take ("abc"
for a number id, a 5,000-digit number, year 2**63) then fails as a 500. Here such a value is
refused in words, or treated like any other odd filter, and nothing is changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.options import ActionLocation, BaseModelAdmin, IncorrectLookupParameters
from django.contrib.admin.views.main import ChangeList
from django.contrib.admin.widgets import AutocompleteSelect
from django.contrib.auth import admin as auth_admin
from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.db.models import Field, ForeignKey, QuerySet
from django.forms import ModelChoiceField
from django.http import HttpRequest, HttpResponse


def usable(field: Field[Any, Any], value: object) -> bool:
    """Whether the database column of `field` can take `value` as sent."""
    try:
        field.to_python(value)
    except ValidationError:
        return False
    return True


class CheckedAutocompleteSelect(AutocompleteSelect):
    """Shows again only the values its model's key can hold; the form itself still refuses the others in words."""

    def optgroups(self, name: str, value: Sequence[str], attr: dict[str, Any] | None = None) -> list[Any]:
        key = self.field.remote_field.model._meta.pk
        return super().optgroups(name, [v for v in value if usable(key, v)], attr)


class CheckedAutocompleteFields(BaseModelAdmin):
    """Autocomplete fields that show again only values their model's key can hold."""

    def formfield_for_foreignkey(
        self, db_field: ForeignKey[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> ModelChoiceField[Any] | None:
        if "widget" not in kwargs and db_field.name in self.get_autocomplete_fields(request):
            kwargs["widget"] = CheckedAutocompleteSelect(db_field, self.admin_site, using=kwargs.get("using"))
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class CheckedModelAdmin(CheckedAutocompleteFields, admin.ModelAdmin):
    """A ModelAdmin whose list actions, autocomplete fields and date drill-down never pass on an unusable value."""

    def response_action(
        self,
        request: HttpRequest,
        queryset: QuerySet[Any],
        action_location: ActionLocation = ActionLocation.CHANGE_LIST,
    ) -> HttpResponse | None:
        selected = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
        if not all(usable(self.model._meta.pk, value) for value in selected):
            self.message_user(
                request, "Some ticked rows are not rows of this list; nothing was changed.", messages.ERROR
            )
            return None
        return super().response_action(request, queryset, action_location)

    def get_changelist_instance(self, request: HttpRequest) -> ChangeList:
        try:
            return super().get_changelist_instance(request)
        except OverflowError as error:
            # A year, month or day no date can hold: answered like any other odd filter (the list, unfiltered).
            raise IncorrectLookupParameters(error) from error


class CheckedTabularInline(CheckedAutocompleteFields, admin.TabularInline):
    """An inline whose autocomplete fields show again only values their key can hold."""


# Django's own user and group admins, with the same checks.
admin.site.unregister(User)
admin.site.unregister(Group)


@admin.register(User)
class UserAdmin(CheckedModelAdmin, auth_admin.UserAdmin):
    pass


@admin.register(Group)
class GroupAdmin(CheckedModelAdmin, auth_admin.GroupAdmin):
    pass
