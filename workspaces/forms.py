"""Forms of the workspace pages; the rules themselves live in services."""

from django import forms

from afterhack.text import MAX_USERNAME_CHARS, MAX_WORKSPACE_NAME_CHARS, refuse_unstorable
from workspaces.models import Role


class WorkspaceForm(forms.Form):
    name = forms.CharField(max_length=MAX_WORKSPACE_NAME_CHARS, strip=True)


class MemberAddForm(forms.Form):
    username = forms.CharField(max_length=MAX_USERNAME_CHARS, strip=True, validators=[refuse_unstorable])
    role = forms.ChoiceField(choices=Role.choices, initial=Role.REVIEWER)


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=Role.choices)
