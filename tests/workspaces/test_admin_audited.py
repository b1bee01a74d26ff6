"""Every field of the Django admin's change forms that changes who may do what is audited when it changes.

The forms are read from the admin site's registry (each ModelAdmin's change form, its inlines, and the user's
password form), not from a list kept by hand: a field added to one of them fails
`test_every_field_of_the_change_forms_is_classified` until it is said below whether it matters, and every field
that matters is changed through the admin — a real POST of the form as the page shows it, by a superuser — and
must leave an event naming the actor, the target and what it was before and after.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group, Permission
from django.db.models import Model
from django.test import Client, RequestFactory

from tests.conftest import MakeUser, Trio, client_for
from workspaces.models import AUDIT_EVERY_WORKSPACE, ApiToken, AuditEvent, Membership, Workspace
from workspaces.services import tokens as token_services

pytestmark = pytest.mark.django_db

FormData = dict[str, list[str]]


class _FormReader(HTMLParser):
    """What a browser would send for one form of a page: every enabled field with its current value."""

    def __init__(self, form_id: str) -> None:
        super().__init__()
        self.form_id, self.inside = form_id, False
        self.data: FormData = {}
        self.select: tuple[str, bool, list[str]] | None = None
        self.textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "form":
            self.inside = named.get("id") == self.form_id
        if tag == "option" and self.select is not None:
            self.select[2].append(named.get("value") or "")
            if "selected" in named:
                self.data[self.select[0]].append(named.get("value") or "")
        name = named.get("name")
        if not self.inside or not name or "disabled" in named:
            return
        kind = named.get("type") or "text"
        if tag == "input" and kind not in ("submit", "button", "image", "reset", "file"):
            if kind not in ("checkbox", "radio") or "checked" in named:
                self.data.setdefault(name, []).append(named.get("value") or ("on" if kind == "checkbox" else ""))
        elif tag == "select":
            self.select = (name, "multiple" in named, [])
            self.data.setdefault(name, [])
        elif tag == "textarea":
            self.textarea = name
            self.data[name] = [""]

    def handle_endtag(self, tag: str) -> None:
        if tag == "select" and self.select is not None:
            name, multiple, options = self.select
            # A single choice with nothing marked sends its first option, as a browser does.
            if not multiple and not self.data[name] and options:
                self.data[name] = [options[0]]
            self.select = None
        elif tag == "textarea":
            self.textarea = None
        elif tag == "form":
            self.inside = False

    def handle_data(self, data: str) -> None:
        if self.textarea is not None:
            self.data[self.textarea][0] += data


def form_on(client: Client, url: str, form_id: str) -> FormData:
    """The form `form_id` of the page at `url`, as a browser would send it unchanged."""
    page = client.get(url)
    assert page.status_code == 200, url
    reader = _FormReader(form_id)
    reader.feed(page.content.decode())
    assert reader.data, f"no form {form_id} on {url}"
    return reader.data


def change_url(obj: Model) -> str:
    return f"/admin/{obj._meta.app_label}/{obj._meta.model_name}/{obj.pk}/change/"


@dataclass
class Scene:
    """What the admin changes: a person who is nobody's last admin, a group with that person, their token, a
    viewer's membership of the trio's workspace, that workspace, and the superuser who changes them."""

    root: Any
    person: Any
    group: Group
    token: ApiToken
    membership: Membership
    workspace: Workspace
    client: Client = field(init=False)

    def __post_init__(self) -> None:
        self.client = client_for(self.root)


@pytest.fixture
def scene(trio: Trio, make_user: MakeUser) -> Scene:
    root = make_user("root", is_staff=True, is_superuser=True)
    person = make_user("ada", first_name="Ada")
    group = Group.objects.create(name="Editors")
    group.user_set.add(person)
    token, _ = token_services.token_issue(user=person, name="script")
    membership = Membership.objects.get(workspace=trio.workspace, user=trio.viewer)
    return Scene(root, person, group, token, membership, trio.workspace)


def auditor_permission() -> Permission:
    return Permission.objects.get(codename=AUDIT_EVERY_WORKSPACE)


@dataclass(frozen=True)
class Change:
    """How to change one field in the form's data, and the event that must follow: its verb, what it names and
    what its payload holds (its before and after)."""

    edit: Callable[[FormData, Scene], None]
    verb: str
    target: Callable[[Scene], str]
    payload: dict[str, Any]


def _set(name: str, *values: str) -> Callable[[FormData, Scene], None]:
    def edit(data: FormData, scene: Scene) -> None:
        data[name] = list(values)

    return edit


def _untick(name: str) -> Callable[[FormData, Scene], None]:
    def edit(data: FormData, scene: Scene) -> None:
        data.pop(name, None)

    return edit


def _give_auditors(data: FormData, scene: Scene) -> None:
    data["groups"] = [*data.get("groups", []), str(Group.objects.get(name="Auditors").pk)]


def _give_permission(name: str) -> Callable[[FormData, Scene], None]:
    def edit(data: FormData, scene: Scene) -> None:
        data[name] = [*data.get(name, []), str(auditor_permission().pk)]

    return edit


def _inline(name: str, value: str) -> Callable[[FormData, Scene], None]:
    def edit(data: FormData, scene: Scene) -> None:
        row = next(i for i in range(100) if data.get(f"memberships-{i}-id") == [str(scene.membership.pk)])
        data[f"memberships-{row}-{name}"] = [value]

    return edit


def _inline_new(data: FormData, scene: Scene) -> None:
    row = int(data["memberships-TOTAL_FORMS"][0]) - 1  # the extra, empty row
    data[f"memberships-{row}-user"] = [str(scene.person.pk)]
    data[f"memberships-{row}-role"] = ["viewer"]


PERSON = lambda scene: scene.person.get_username()  # noqa: E731 - a table's cell
VIEWER = lambda scene: scene.membership.user.get_username()  # noqa: E731

# The forms, by name: the admin's change form of a model, an inline of it ("<model> inline <prefix>"), and the
# user's password form.
USER, PASSWORD, GROUP = "auth.user", "auth.user password", "auth.group"
TOKEN, MEMBERSHIP, WORKSPACE = "workspaces.apitoken", "workspaces.membership", "workspaces.workspace"
INLINE = "workspaces.workspace inline memberships"

# Every field that changes who may do what, how the test changes it, and the event it must leave.
AUDITED: dict[tuple[str, str], Change] = {
    (USER, "username"): Change(_set("username", "ada.lovelace"), "user.renamed", PERSON, {"from": "ada", "to": "ada.lovelace"}),
    (USER, "is_active"): Change(_untick("is_active"), "user.deactivated", PERSON, {"from": "active", "to": "deactivated"}),
    (USER, "is_staff"): Change(_set("is_staff", "on"), "user.staff_granted", PERSON, {"from": "not staff", "to": "staff"}),
    (USER, "is_superuser"): Change(
        _set("is_superuser", "on"), "user.superuser_granted", PERSON, {"from": "not a superuser", "to": "superuser"}
    ),
    (USER, "groups"): Change(
        _give_auditors, "user.group_added", PERSON, {"from": ["Editors"], "to": ["Auditors", "Editors"]}
    ),
    (USER, "user_permissions"): Change(
        _give_permission("user_permissions"), "user.permission_added", PERSON,
        {"from": [], "to": ["workspaces.audit_every_workspace"]},
    ),
    (PASSWORD, "password1"): Change(
        lambda data, scene: data.update(password1=["A new pass phrase 42"], password2=["A new pass phrase 42"]),
        "user.password_set", PERSON, {"from": "old password", "to": "new password"},
    ),
    (PASSWORD, "usable_password"): Change(
        lambda data, scene: data.update({"usable_password": ["false"], "unset-password": ["Disable"]}),
        "user.password_removed", PERSON, {"from": "set", "to": "unusable"},
    ),
    (GROUP, "permissions"): Change(
        _give_permission("permissions"), "group.permission_added", lambda scene: scene.group.name,
        {"from": [], "to": ["workspaces.audit_every_workspace"], "members": ["ada"]},
    ),
    (MEMBERSHIP, "role"): Change(_set("role", "reviewer"), "member.role_changed", VIEWER, {"from": "viewer", "to": "reviewer"}),
    (WORKSPACE, "independent_sources"): Change(
        _set("independent_sources", "on"), "workspace.changed", lambda scene: scene.workspace.name,
        {"from": {"independent_sources": False}, "to": {"independent_sources": True}},
    ),
    (WORKSPACE, "agent_claims_need_approval"): Change(
        _set("agent_claims_need_approval", "on"), "workspace.changed", lambda scene: scene.workspace.name,
        {"from": {"agent_claims_need_approval": False}, "to": {"agent_claims_need_approval": True}},
    ),
    (INLINE, "role"): Change(_inline("role", "reviewer"), "member.role_changed", VIEWER, {"from": "viewer", "to": "reviewer"}),
    (INLINE, "DELETE"): Change(_inline("DELETE", "on"), "member.removed", VIEWER, {"to": "not a member"}),
    (INLINE, "user"): Change(_inline_new, "member.added", PERSON, {"from": "not a member", "to": "viewer"}),
}  # fmt: skip

# The fields that change nothing anyone may do, and why.
NOT_ACCESS = {
    (USER, "first_name"): "a name",
    (USER, "last_name"): "a name",
    (USER, "email"): "an address: no sign-in or reset goes by it",
    (USER, "last_login"): "a record of the past",
    (USER, "date_joined"): "a record of the past",
    (PASSWORD, "password2"): "the same password typed again (password1 is audited)",
    (GROUP, "name"): "a label; its members and permissions stay (audited anyway, as group.renamed)",
    # A token is revoked by the list's action or its page's button, not by a field (tests/workspaces/test_admin_tokens.py).
    (TOKEN, "name"): "a label",
    (WORKSPACE, "name"): "a label (audited anyway, as workspace.changed)",
    (INLINE, "id"): "the row's own key, hidden",
    (INLINE, "workspace"): "the workspace the page is about, hidden",
}

# The form that shows each admin's fields, its id on the page, and the object it changes.
PAGES: dict[str, tuple[Callable[[Scene], Model], str, str]] = {
    USER: (lambda scene: scene.person, "user_form", ""),
    PASSWORD: (lambda scene: scene.person, "user_form", "password/"),
    GROUP: (lambda scene: scene.group, "group_form", ""),
    TOKEN: (lambda scene: scene.token, "apitoken_form", ""),
    MEMBERSHIP: (lambda scene: scene.membership, "membership_form", ""),
    WORKSPACE: (lambda scene: scene.workspace, "workspace_form", ""),
    INLINE: (lambda scene: scene.workspace, "workspace_form", ""),
}


def change_forms(scene: Scene) -> dict[str, set[str]]:
    """Each admin change form's fields a person can change, read from the admin site's registry."""
    request = RequestFactory().get("/admin/")
    request.user = scene.root
    forms: dict[str, set[str]] = {}
    for model, model_admin in admin.site._registry.items():
        obj = model._default_manager.first()
        if obj is None or not model_admin.has_change_permission(request, obj):
            continue
        name = f"{model._meta.app_label}.{model._meta.model_name}"
        form = model_admin.get_form(request, obj, change=True)
        forms[name] = {field for field, form_field in form.base_fields.items() if not form_field.disabled}
        for formset, _inline in model_admin.get_formsets_with_inlines(request, obj):
            row = formset(instance=obj, prefix=formset.get_default_prefix()).forms[0]
            forms[f"{name} inline {formset.get_default_prefix()}"] = set(row.fields)
        if password_form := getattr(model_admin, "change_password_form", None):
            forms[f"{name} password"] = set(password_form(obj).fields)
    return forms


# The models whose admin decides who may do what; their forms must all be classified.
ACCESS_MODELS = {USER, GROUP, TOKEN, MEMBERSHIP, WORKSPACE}


def access_forms(scene: Scene) -> dict[str, set[str]]:
    return {name: fields for name, fields in change_forms(scene).items() if name.split(" ")[0] in ACCESS_MODELS}


class AdminFormsAuditedTests:
    def test_every_field_of_the_change_forms_is_classified(self, scene: Scene) -> None:
        forms = access_forms(scene)
        assert set(forms) >= {USER, PASSWORD, GROUP, TOKEN, MEMBERSHIP, WORKSPACE, INLINE}
        unclassified = (
            {(form, name) for form, fields in forms.items() for name in fields} - AUDITED.keys() - NOT_ACCESS.keys()
        )
        assert not unclassified, f"Say whether these change who may do what (AUDITED or NOT_ACCESS): {unclassified}"

    def test_the_fields_said_to_change_nothing_are_not_what_decides_access(self) -> None:
        # A guard on the table itself: the fields that decide access can never be waved through as harmless.
        deciding = {"is_active", "is_staff", "is_superuser", "groups", "user_permissions", "permissions", "role"}
        assert not {name for _, name in NOT_ACCESS} & deciding

    @pytest.mark.parametrize("form", sorted({form for form, _ in AUDITED}))
    def test_each_field_that_changes_access_leaves_an_event_with_actor_target_and_before_after(
        self, scene: Scene, form: str
    ) -> None:
        present = access_forms(scene).get(form, set())
        changed = [name for (owner, name) in AUDITED if owner == form and name in present]
        assert changed, f"the admin's {form} form no longer has any of its audited fields"
        for name in changed:
            change = AUDITED[(form, name)]
            obj, form_id, suffix = PAGES[form]
            url = change_url(obj(scene)).removesuffix("change/") + (suffix or "change/")
            data = form_on(scene.client, url, form_id)
            change.edit(data, scene)
            last = AuditEvent.objects.order_by("-id").values_list("id", flat=True).first() or 0
            response = scene.client.post(url, {**data, "_continue": ["Save"]})
            assert response.status_code == 302, (form, name, response.content.decode()[:3000])
            scene.person.refresh_from_db()
            scene.group.refresh_from_db()
            events = list(AuditEvent.objects.filter(pk__gt=last, verb=change.verb))
            assert len(events) == 1, (form, name, list(AuditEvent.objects.filter(pk__gt=last).values("verb")))
            event = events[0]
            assert event.actor == scene.root and event.actor_name == "root", (form, name)
            assert change.target(scene) in event.target, (form, name, event.target)
            assert change.payload.items() <= event.payload.items(), (form, name, event.payload)
            assert "{" not in event.summary and event.summary, event.summary
            if change.payload:
                assert event.payload["from"] != event.payload["to"]

    def test_creating_a_person_in_the_admin_is_audited(self, scene: Scene) -> None:
        form = form_on(scene.client, "/admin/auth/user/add/", "user_form")
        form.update(
            username=["grace"], usable_password=["true"], password1=["A long pass 1906"], password2=["A long pass 1906"]
        )
        assert scene.client.post("/admin/auth/user/add/", form).status_code == 302
        event = AuditEvent.objects.get(verb="user.created", target="grace")
        assert event.actor == scene.root and event.target == "grace" and event.workspace is None
        assert event.payload["from"] == "no account" and event.payload["to"] == "active, with a password"
        assert event.payload["via"] == "the Django admin"
        assert event.summary == "created the account grace (active, with a password)"
