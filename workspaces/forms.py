"""Forms of the workspace pages; the rules themselves live in services."""

from django import forms

from workspaces.models import NAME_MAX_LENGTH, Role


class WorkspaceForm(forms.Form):
    name = forms.CharField(max_length=NAME_MAX_LENGTH, strip=True)


class MemberAddForm(forms.Form):
    username = forms.CharField(max_length=150, strip=True)
    role = forms.ChoiceField(choices=Role.choices, initial=Role.REVIEWER)


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=Role.choices)
