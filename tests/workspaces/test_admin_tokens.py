"""API tokens in the Django admin, handled as secrets: shown once in a panel, a whole-word alphabet, revoked (asked
first, audited per token) and never deleted; lists that show what a person reads, not internal names."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client, override_settings
from django.utils import timezone

from tests.conftest import ApiClient, MakeUser, Trio, client_for
from workspaces.admin.tokens import expiry_in_words
from workspaces.models import ApiToken, AuditEvent, hash_token
from workspaces.services import tokens as token_services
from workspaces.services import workspaces as workspace_services

pytestmark = pytest.mark.django_db

TOKENS = "/admin/workspaces/apitoken/"
NEW_TOKEN = re.compile(r'<code id="new-token"[^>]*>([^<]*)</code>')


def root_client(make_user: MakeUser) -> Client:
    return client_for(make_user("root", is_staff=True, is_superuser=True))


def result_table(page: str) -> str:
    """The admin list's table of results, as it is marked up."""
    table = re.search(r'<table id="result_list">.*?</table>', page, re.S)
    assert table is not None, "no results table"
    return table.group(0)


def shown_text(markup: str) -> str:
    """What a person reads of `markup`: the text between the tags, each piece between bars."""
    return re.sub(r"(\s*<[^>]+>\s*)+", "|", markup)


def revoke(client: Client, *tokens: ApiToken, confirmed: bool = True) -> Any:
    """The list's "Revoke selected API tokens" action on these tokens, confirmed or only asked for."""
    form = {"action": "revoke_selected", "_selected_action": [str(token.pk) for token in tokens]}
    return client.post(TOKENS, {**form, **({"post": "yes"} if confirmed else {})}, follow=confirmed)


class TokenAlphabetTests:
    def test_a_new_token_is_the_prefix_then_43_letters_and_digits(self, make_user: MakeUser) -> None:
        agent = make_user("agent")
        raws = [token_services.token_issue(user=agent)[1] for _ in range(40)]
        assert all(re.fullmatch(r"ah_[A-Za-z0-9]{43}", raw) for raw in raws), raws
        assert len(set(raws)) == len(raws)
        # 62 characters, 43 of them: at least 256 bits.
        assert 43 * (62).bit_length() > 256 and 62**43 >= 2**256

    def test_a_token_issued_before_with_dashes_and_underscores_still_works(self, make_user: MakeUser) -> None:
        agent = make_user("agent")
        old = "ah_Zq-8_x3K-pLm0_" + "a-b_" * 7
        ApiToken.objects.create(user=agent, name="old", key_hash=hash_token(old), hint=old[:8])
        assert ApiClient(old).get("/workspaces").status_code == 200
        assert ApiToken.objects.get(name="old").last_used_at is not None


class AdminAddTokenTests:
    def test_the_form_asks_who_what_and_until_when_and_starts_with_an_empty_expiry(self, make_user: MakeUser) -> None:
        page = root_client(make_user).get(TOKENS + "add/").content.decode()
        assert 'name="user"' in page and 'name="name"' in page
        assert "revoked_at" not in page and "Revoked at" not in page
        assert re.search(r'<input type="text" name="expires_at_0"(?![^>]*value=)[^>]*>', page), "expiry not empty"
        usual = (timezone.now() + timedelta(days=30)).astimezone(UTC)
        assert "Leave empty for the usual 30 days (AFTERHACK_TOKEN_TTL_DAYS): issued now, it would expire on " in page
        assert f"{usual.day} {usual:%B %Y} at" in page
        assert "Save and continue editing" not in page and "Save and add another" not in page

    @override_settings(AFTERHACK_TOKEN_TTL_DAYS=7)
    def test_the_help_says_the_configured_lifetime_and_empty_gives_it(self, make_user: MakeUser) -> None:
        client, agent = root_client(make_user), make_user("agent")
        assert "the usual 7 days (AFTERHACK_TOKEN_TTL_DAYS)" in client.get(TOKENS + "add/").content.decode()
        form = {"user": agent.pk, "name": "weekly", "expires_at_0": "", "expires_at_1": ""}
        response = client.post(TOKENS + "add/", form)
        assert "expires on " in response.content.decode() and ", in 7 days." in response.content.decode()
        expires_at = ApiToken.objects.get(name="weekly").expires_at
        assert abs(expires_at - (timezone.now() + timedelta(days=7))) < timedelta(minutes=1)

    def test_a_revoked_at_sent_with_the_form_is_ignored(self, make_user: MakeUser) -> None:
        client, agent = root_client(make_user), make_user("agent")
        form = {"user": agent.pk, "name": "nightly", "revoked_at_0": "2026-01-01", "revoked_at_1": "00:00:00"}
        raw = NEW_TOKEN.search(client.post(TOKENS + "add/", form).content.decode())
        assert raw is not None and ApiToken.objects.get(name="nightly").revoked_at is None
        assert ApiClient(raw.group(1)).get("/workspaces").status_code == 200

    def test_the_panel_shows_the_token_a_copy_button_and_the_expiry_in_words(self, make_user: MakeUser) -> None:
        client, agent = root_client(make_user), make_user("agent")
        response = client.post(TOKENS + "add/", {"user": agent.pk, "name": "nightly"})
        page = response.content.decode()
        raw = NEW_TOKEN.search(page)
        assert raw is not None and re.fullmatch(r"ah_[A-Za-z0-9]{43}", raw.group(1))
        assert '<button type="button" class="button" data-copy="new-token">Copy</button>' in page
        assert "workspaces/admin_tokens.js" in page
        assert "Copy the token now: it is shown only this once" in page
        assert "“nightly” acts as <strong>agent</strong> and expires on " in page and ", in 30 days." in page
        # Not in a flash message, and no message waits for the next page with it.
        assert 'class="messagelist"' not in page
        assert raw.group(1) not in client.get(TOKENS).content.decode()

    def test_a_refused_form_issues_nothing_and_shows_no_panel(self, make_user: MakeUser) -> None:
        client, agent = root_client(make_user), make_user("agent")
        form = {"user": agent.pk, "name": "nightly", "expires_at_0": "2001-01-01", "expires_at_1": "00:00:00"}
        page = client.post(TOKENS + "add/", form).content.decode()
        assert "Choose a moment in the future, or leave it empty for the usual lifetime." in page
        assert NEW_TOKEN.search(page) is None and not ApiToken.objects.exists()
        assert not AuditEvent.objects.filter(verb="token.issued").exists()


class ExpiryInWordsTests:
    NOW = datetime(2026, 12, 1, 14, 0, tzinfo=UTC)

    @pytest.mark.parametrize(
        ("later", "words"),
        [
            (timedelta(days=30), "on 31 December 2026 at 14:00 UTC, in 30 days"),
            (timedelta(days=1, hours=3), "on 2 December 2026 at 17:00 UTC, in 1 day"),
            (timedelta(hours=5, minutes=10), "on 1 December 2026 at 19:10 UTC, in 5 hours"),
            (timedelta(seconds=61), "on 1 December 2026 at 14:01 UTC, in 2 minutes"),
            (timedelta(seconds=-1), "on 1 December 2026 at 13:59 UTC, already past"),
        ],
    )
    def test_it_says_the_moment_and_how_long_until_it(self, later: timedelta, words: str) -> None:
        assert expiry_in_words(self.NOW + later, now=self.NOW) == words


class AdminRevokeTokensTests:
    def test_it_asks_first_naming_the_tokens_and_revokes_nothing_yet(self, make_user: MakeUser) -> None:
        client, agent = root_client(make_user), make_user("agent")
        token, _ = token_services.token_issue(user=agent, name="nightly")
        page = revoke(client, token, confirmed=False).content.decode()
        assert "Revoke API tokens?" in page and f"“nightly” ({token.hint}…) for agent" in page
        assert "A revoked token cannot be restored" in page and 'value="Yes, revoke it"' in page
        token.refresh_from_db()
        assert token.revoked_at is None and not AuditEvent.objects.filter(verb="token.revoked").exists()

    def test_it_revokes_the_selected_tokens_each_audited_and_refused_at_once(self, make_user: MakeUser) -> None:
        client, agent, bot = root_client(make_user), make_user("agent"), make_user("bot")
        (first, first_raw), (second, second_raw) = (
            token_services.token_issue(user=agent),
            token_services.token_issue(user=bot),
        )
        kept, kept_raw = token_services.token_issue(user=agent, name="kept")
        response = revoke(client, first, second)
        assert "Revoked 2 API tokens: they are refused from now on." in response.content.decode()
        assert [ApiClient(raw).get("/workspaces").status_code for raw in (first_raw, second_raw, kept_raw)] == [
            401,
            401,
            200,
        ]
        events = AuditEvent.objects.filter(verb="token.revoked")
        assert sorted((event.target, event.actor_name) for event in events) == sorted(
            [(f"{first.hint}… for agent", "root"), (f"{second.hint}… for bot", "root")]
        )
        assert ApiToken.objects.get(pk=kept.pk).revoked_at is None

    def test_tokens_revoked_already_are_counted_apart_and_keep_their_date(self, make_user: MakeUser) -> None:
        client, agent = root_client(make_user), make_user("agent")
        (old, _), (live, _) = token_services.token_issue(user=agent), token_services.token_issue(user=agent)
        token_services.token_revoke(token=old, actor=agent)
        revoked_at = ApiToken.objects.get(pk=old.pk).revoked_at
        page = revoke(client, old, live).content.decode()
        assert "Revoked 1 API token: it is refused from now on. 1 other had been revoked already." in page
        assert ApiToken.objects.get(pk=old.pk).revoked_at == revoked_at
        assert AuditEvent.objects.filter(verb="token.revoked").count() == 2
        page = revoke(client, old, live).content.decode()
        assert "Nothing to revoke: the selected tokens were revoked already." in page

    def test_a_token_in_force_is_revoked_from_its_own_page_through_the_same_question(self, make_user: MakeUser) -> None:
        client, agent = root_client(make_user), make_user("agent")
        token, raw = token_services.token_issue(user=agent, name="nightly")
        page = client.get(f"{TOKENS}{token.pk}/change/").content.decode()
        form = re.search(r'<form method="post" action="([^"]+)" class="revoke-token">(.*?)</form>', page, re.S)
        assert form is not None and form.group(1) == TOKENS
        assert 'name="action" value="revoke_selected"' in form.group(2)
        assert f'name="_selected_action" value="{token.pk}"' in form.group(2)
        assert "Revoke this token" in form.group(2)
        revoke(client, token)
        assert ApiClient(raw).get("/workspaces").status_code == 401
        assert "Revoke this token" not in client.get(f"{TOKENS}{token.pk}/change/").content.decode()

    def test_staff_who_may_only_view_tokens_cannot_revoke_them(self, make_user: MakeUser) -> None:
        viewer = make_user("auditor", is_staff=True)
        viewer.user_permissions.add(Permission.objects.get(codename="view_apitoken"))
        token, raw = token_services.token_issue(user=make_user("agent"))
        client = client_for(viewer)
        assert "Revoke selected API tokens" not in client.get(TOKENS).content.decode()
        assert "Revoke this token" not in client.get(f"{TOKENS}{token.pk}/change/").content.decode()
        revoke(client, token)
        assert ApiToken.objects.get(pk=token.pk).revoked_at is None
        assert ApiClient(raw).get("/workspaces").status_code == 200


class AdminTokensAreNotDeletedTests:
    def test_there_is_no_delete_action_page_or_link(self, make_user: MakeUser) -> None:
        client = root_client(make_user)
        token, raw = token_services.token_issue(user=make_user("agent"))
        assert "delete_selected" not in client.get(TOKENS).content.decode()
        assert "deletelink" not in client.get(f"{TOKENS}{token.pk}/change/").content.decode()
        assert client.post(f"{TOKENS}{token.pk}/delete/", {"post": "yes"}).status_code == 403
        response = client.post(TOKENS, {"action": "delete_selected", "_selected_action": [token.pk], "post": "yes"})
        assert response.status_code in (200, 302) and ApiToken.objects.filter(pk=token.pk).exists()
        assert ApiClient(raw).get("/workspaces").status_code == 200

    def test_a_person_who_held_a_token_is_deactivated_not_deleted_with_its_history(self, make_user: MakeUser) -> None:
        root, agent = make_user("root", is_staff=True, is_superuser=True), make_user("agent")
        token, _ = token_services.token_issue(user=agent, actor=root)
        client = client_for(root)
        page = client.get(f"/admin/auth/user/{agent.pk}/delete/").content.decode()
        assert "permission to delete the following types of objects:" in page and "API token" in page
        assert client.post(f"/admin/auth/user/{agent.pk}/delete/", {"post": "yes"}).status_code == 403
        assert ApiToken.objects.filter(pk=token.pk, user=agent).exists()


class AdminTokenListTests:
    def test_it_shows_name_user_start_state_in_words_with_its_day_and_last_use(self, make_user: MakeUser) -> None:
        client, agent = root_client(make_user), make_user("agent")
        active, raw = token_services.token_issue(user=agent, name="active one")
        ApiClient(raw).get("/workspaces")
        revoked, _ = token_services.token_issue(user=agent, name="revoked one")
        token_services.token_revoke(token=revoked, actor=agent)
        expired, _ = token_services.token_issue(user=agent, name="expired one")
        ApiToken.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
        table = result_table(client.get(TOKENS).content.decode())
        header = shown_text(re.search(r"<thead>.*?</thead>", table, re.S).group(0))  # type: ignore[union-attr]
        assert header == "|Name|User|Starts with|State|Last used|"
        rows = {
            name: shown_text(row)
            for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)
            for name in ("active one", "revoked one", "expired one")
            if name in row
        }
        until = (timezone.now() + timedelta(days=30)).astimezone(UTC)
        today = timezone.now().astimezone(UTC)
        assert (
            rows["active one"] == f"|active one|agent|{active.hint}…|Active until|{until:%-d %b %Y}|{today:%-d %b %Y}|"
        )
        assert rows["revoked one"] == f"|revoked one|agent|{revoked.hint}…|Revoked|{today:%-d %b %Y}|never|"
        assert rows["expired one"] == f"|expired one|agent|{expired.hint}…|Expired|{today:%-d %b %Y}|never|"

    def test_it_filters_by_state(self, make_user: MakeUser) -> None:
        client, agent = root_client(make_user), make_user("agent")
        token_services.token_issue(user=agent, name="active one")
        revoked, _ = token_services.token_issue(user=agent, name="revoked one")
        token_services.token_revoke(token=revoked, actor=agent)
        expired, _ = token_services.token_issue(user=agent, name="expired one")
        ApiToken.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
        for state in ("active", "revoked", "expired"):
            page = client.get(f"{TOKENS}?state={state}").content.decode()
            shown = {name for name in ("active one", "revoked one", "expired one") if name in page}
            assert shown == {f"{state} one"}, state

    def test_it_takes_no_lookup_from_the_address_so_no_hash_is_spelled_out_by_counts(self, make_user: MakeUser) -> None:
        client, agent = root_client(make_user), make_user("agent")
        token, _ = token_services.token_issue(user=agent, name="hashed")
        for lookup in (f"key_hash__startswith={token.key_hash[:2]}", "key_hash__startswith=zz", "name__icontains=hash"):
            response = client.get(f"{TOKENS}?{lookup}")
            assert response.status_code == 400, lookup
            assert "can be narrowed only by their state" in response.content.decode()
            assert "hashed" not in response.content.decode()


class AdminWorkspaceListTests:
    def test_it_shows_no_internal_columns_and_still_finds_a_workspace_by_id(
        self, trio: Trio, make_user: MakeUser
    ) -> None:
        client = root_client(make_user)
        workspace = trio.workspace
        shown = shown_text(result_table(client.get("/admin/workspaces/workspace/").content.decode()))
        assert shown.startswith("|Name|Independent sources|Agent claims need approval|Created at|Launch planning|")
        assert str(workspace.id) not in shown and workspace.id.hex not in shown
        other = workspace_services.workspace_create(name="Hiring", creator=trio.owner)
        for query in (str(workspace.id), str(workspace.id)[:8]):
            found = shown_text(result_table(client.get("/admin/workspaces/workspace/", {"q": query}).content.decode()))
            assert workspace.name in found and other.name not in found, query
