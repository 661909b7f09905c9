#!/usr/bin/env python3
"""python-gitlab (3.12, Debian's python3-gitlab) against a running forgekit, through the library's own API.

Usage: python_flows.py <server URL> <root private token>
       (or FORGEKIT_URL and FORGEKIT_ROOT_TOKEN in the environment)

Prints one line per flow; on the first wrong value or unexpected exception prints what went wrong and
exits 1. The flows are written as they work against the original service: a failure here is an
incompatibility of the server, not of the client. Names start with `py-` so that the Go program can run
against the same server afterwards.
"""

import base64
import datetime
import os
import re
import secrets
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

import gitlab
from gitlab.v4.objects import CurrentUserManager

# python-gitlab reports a Link or web_url that does not start with the URL it was given (and other client-side
# surprises) as a UserWarning: against forgekit that is a failure too.
warnings.simplefilter("error", UserWarning)


class Failure(Exception):
    pass


def check(what, actual, expected):
    if actual != expected:
        raise Failure(f"{what}: expected {expected!r}, got {actual!r}")


def check_true(what, condition, detail=""):
    if not condition:
        raise Failure(f"{what}{': ' + detail if detail else ''}")


def expect_error(what, call, error_class, status, message=None):
    """`call` must raise `error_class` with HTTP `status` (and `message` when given); returns the error."""
    try:
        result = call()
    except error_class as error:
        check(f"{what}: status", error.response_code, status)
        if message is not None:
            check(f"{what}: message", error.error_message, message)
        return error
    except gitlab.exceptions.GitlabError as error:
        raise Failure(f"{what}: expected {error_class.__name__} {status}, got {type(error).__name__} "
                      f"{error.response_code} {error.error_message!r}")
    raise Failure(f"{what}: expected {error_class.__name__} {status}, but the call succeeded with {result!r}")


def check_datetime(what, value):
    check_true(f"{what} is an ISO 8601 datetime", isinstance(value, str) and
               re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$", value) is not None, repr(value))


# --- test material -------------------------------------------------------------------------------------------

# A real Ed25519 public key (RFC 8032 arithmetic), so that no SSH tooling is needed.
_P = 2 ** 255 - 19
_D = -121665 * pow(121666, _P - 2, _P) % _P


def _add(a, b):
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    A, B = (y1 - x1) * (y2 - x2) % _P, (y1 + x1) * (y2 + x2) % _P
    C, D = 2 * t1 * t2 * _D % _P, 2 * z1 * z2 % _P
    E, F, G, H = B - A, D - C, D + C, B + A
    return (E * F % _P, G * H % _P, F * G % _P, E * H % _P)


def _base_point():
    y = 4 * pow(5, _P - 2, _P) % _P
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * pow(2, (_P - 1) // 4, _P) % _P
    if x & 1:
        x = _P - x
    return (x, y, 1, x * y % _P)


def ssh_public_key(comment):
    scalar, point, result = secrets.randbits(252) | (1 << 254), _base_point(), (0, 1, 1, 0)
    while scalar:
        if scalar & 1:
            result = _add(result, point)
        point, scalar = _add(point, point), scalar >> 1
    zinv = pow(result[2], _P - 2, _P)
    x, y = result[0] * zinv % _P, result[1] * zinv % _P
    public = (y | ((x & 1) << 255)).to_bytes(32, "little")
    blob = b"".join(struct.pack(">I", len(part)) + part for part in (b"ssh-ed25519", public))
    return f"ssh-ed25519 {base64.b64encode(blob).decode()} {comment}"


class Gpg:
    """Real OpenPGP public keys made by gpg in a throwaway home directory."""

    def __init__(self):
        self.home = tempfile.mkdtemp(prefix="forgekit-py-gpg-")

    def public_key(self, uid):
        env = {**os.environ, "GNUPGHOME": self.home}
        subprocess.run(["gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", "", "--quick-gen-key", uid,
                        "ed25519", "sign", "never"], env=env, check=True, capture_output=True)
        return subprocess.run(["gpg", "--batch", "--armor", "--export", uid], env=env, check=True,
                              capture_output=True, text=True).stdout.strip()

    def close(self):
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env={**os.environ, "GNUPGHOME": self.home},
                       capture_output=True)
        shutil.rmtree(self.home, ignore_errors=True)


def future_date(days):
    return (datetime.date.today() + datetime.timedelta(days=days)).isoformat()


# --- the flows -----------------------------------------------------------------------------------------------

class Flows:
    def __init__(self, url, token):
        self.url = url
        self.gl = gitlab.Gitlab(url, private_token=token)
        self.gpg = Gpg()
        self.user = None  # the user the later flows work on
        # What the groups flow leaves for the members and namespaces flows: a group, its private subgroup, an internal
        # project in the group and a private one in the subgroup.
        self.group = self.subgroup = self.group_project = self.private_project = None

    def client(self, token):
        return gitlab.Gitlab(self.url, private_token=token)

    def new_user(self, username, **extra):
        return self.gl.users.create({"email": f"{username}@example.com", "username": username, "name": username.title(),
                                     "password": "py-Secret-Passw0rd", "skip_confirmation": True, **extra})

    def version(self):
        version, revision = self.gl.version()
        # gl.version() answers ("unknown", "unknown") when GET /version fails or is not a JSON object.
        check_true("gl.version() gives a version", re.match(r"^\d+\.\d+\.\d+", version) is not None,
                   f"GET /version answered version={version!r} revision={revision!r}")
        check_true("gl.version() gives a revision", revision not in ("", "unknown"), repr(revision))
        return f"{version} {revision}"

    def auth(self):
        self.gl.auth()
        me = self.gl.user
        check("gl.user.id", me.id, 1)
        check("gl.user.username", me.username, "root")
        check("gl.user.is_admin", me.is_admin, True)
        check("gl.user.state", me.state, "active")
        check_true("gl.user.web_url names root", me.web_url.endswith("/root"), me.web_url)
        expect_error("a wrong token", lambda: self.client("py-not-a-token").auth(),
                     gitlab.exceptions.GitlabAuthenticationError, 401, "401 Unauthorized")
        return "root"

    def users(self):
        gl = self.gl
        created = [self.new_user(f"py-page-{i}") for i in range(5)]
        first = created[0]
        check("users.create username", first.username, "py-page-0")
        check("users.create name", first.name, "Py-Page-0")
        check("users.create email", first.email, "py-page-0@example.com")
        check("users.create state", first.state, "active")
        check("users.create is_admin", first.is_admin, False)
        check_true("users.create confirmed_at (skip_confirmation)", first.confirmed_at is not None)
        check_datetime("users.create created_at", first.created_at)

        expect_error("users.create with a taken username",
                     lambda: self.new_user("py-page-0", email="py-page-0-other@example.com"),
                     gitlab.exceptions.GitlabCreateError, 409, "Username has already been taken")
        expect_error("users.create with a taken email",
                     lambda: self.new_user("py-page-other", email="py-page-0@example.com"),
                     gitlab.exceptions.GitlabCreateError, 409, "Email has already been taken")

        # The library's own pagination: iterator=True follows the Link headers page after page.
        pages = gl.users.list(search="py-page-", per_page=2, iterator=True)
        check("users.list(iterator=True).total", pages.total, 5)
        check("users.list(iterator=True).total_pages", pages.total_pages, 3)
        check("users.list(iterator=True).per_page", pages.per_page, 2)
        check("users.list(iterator=True).current_page", pages.current_page, 1)
        check("users.list(iterator=True).next_page", pages.next_page, 2)
        names = [user.username for user in pages]
        check("users.list(iterator=True) usernames across 3 pages", sorted(names), [f"py-page-{i}" for i in range(5)])
        every = gl.users.list(search="py-page-", per_page=2, get_all=True)
        check("users.list(get_all=True) count", len(every), 5)
        by_page = [gl.users.list(search="py-page-", per_page=2, page=page) for page in (1, 2, 3)]
        check("users.list(page=1..3, per_page=2) sizes", [len(items) for items in by_page], [2, 2, 1])
        check("users.list(page=1..3) cover the 5 users once", sorted(u.username for items in by_page for u in items),
              sorted(names))
        check_true("users.list(get_all=True) includes root", "root" in [u.username for u in gl.users.list(get_all=True)])
        check("users.list(username=...)", [u.id for u in gl.users.list(username="py-page-3")], [created[3].id])
        yesterday = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=1)).isoformat()
        check("users.list(created_after=yesterday)", len(gl.users.list(search="py-page-", created_after=yesterday, get_all=True)), 5)
        check("users.list(created_before=yesterday)", gl.users.list(search="py-page-", created_before=yesterday, get_all=True), [])
        check("users.list(active=True)", len(gl.users.list(search="py-page-", active=True, get_all=True)), 5)

        user = gl.users.get(first.id)
        check("users.get username", user.username, "py-page-0")
        check("users.get email", user.email, "py-page-0@example.com")

        user.bio = "Written by python-gitlab"
        user.location = "Lisbon"
        user.save()
        check("user.save() bio", user.bio, "Written by python-gitlab")
        again = gl.users.get(first.id)
        check("users.get after save: bio", again.bio, "Written by python-gitlab")
        check("users.get after save: location", again.location, "Lisbon")
        # python-gitlab insists on email, username and name in every update (save() adds them itself).
        gl.users.update(first.id, {"email": again.email, "username": again.username, "name": "Renamed By Python"})
        check("users.get after users.update: name", gl.users.get(first.id).name, "Renamed By Python")

        check("user.block()", again.block(), True)
        check("user.state after block()", again.state, "blocked")
        check("users.get state after block", gl.users.get(first.id).state, "blocked")
        check("users.list(blocked=True)", [u.username for u in gl.users.list(blocked=True, get_all=True)], ["py-page-0"])
        check("user.unblock()", again.unblock(), True)
        check("user.state after unblock()", again.state, "active")
        check("users.get state after unblock", gl.users.get(first.id).state, "active")

        doomed = created[4]
        doomed.delete()
        # The original service deletes users in the background: allow it a moment.
        deadline = time.monotonic() + 10
        while True:
            try:
                gl.users.get(doomed.id)
            except gitlab.exceptions.GitlabGetError as error:
                check("users.get of a deleted user: status", error.response_code, 404)
                break
            if time.monotonic() > deadline:
                raise Failure("users.get still finds a deleted user after 10 s")
            time.sleep(0.2)
        check("users.list after delete", gl.users.list(search="py-page-", get_all=True).__len__(), 4)

        self.user = gl.users.get(created[1].id)
        return "create, list 3 pages, get, update, block/unblock, delete"

    def ssh_keys(self):
        gl, user = self.gl, self.user
        mine = ssh_public_key("py-root@forgekit")
        key = gl.user.keys.create({"title": "py root key", "key": mine})
        check("user.keys.create title", key.title, "py root key")
        check("user.keys.create key", key.key, mine)
        check_datetime("user.keys.create created_at", key.created_at)
        check_true("user.keys.list includes the key", key.id in [k.id for k in gl.user.keys.list(get_all=True)])
        check("user.keys.get title", gl.user.keys.get(key.id).title, "py root key")
        expect_error("user.keys.create with the same key", lambda: gl.user.keys.create({"title": "again", "key": mine}),
                     gitlab.exceptions.GitlabCreateError, 400)
        key.delete()
        expect_error("user.keys.get of a deleted key", lambda: gl.user.keys.get(key.id), gitlab.exceptions.GitlabGetError, 404)

        theirs = ssh_public_key("py-user@forgekit")
        other = user.keys.create({"title": "py user key", "key": theirs})
        check("users[id].keys.create title", other.title, "py user key")
        check("users[id].keys.create key", other.key, theirs)
        check("users[id].keys.list", [(k.id, k.title) for k in user.keys.list(get_all=True)], [(other.id, "py user key")])
        shown = user.keys.get(other.id)
        check("users[id].keys.get title", shown.title, "py user key")
        check("users[id].keys.get key", shown.key, theirs)
        user.keys.delete(other.id)
        check("users[id].keys.list after delete", user.keys.list(get_all=True), [])
        return "current user and another user: create, list, get, delete"

    def gpg_keys(self):
        gl, user = self.gl, self.user
        armored = self.gpg.public_key("Py Root <py-root-gpg@example.com>")
        key = gl.user.gpgkeys.create({"key": armored})
        check("user.gpgkeys.create key", key.key, armored)
        check_datetime("user.gpgkeys.create created_at", key.created_at)
        check_true("user.gpgkeys.list includes the key", key.id in [k.id for k in gl.user.gpgkeys.list(get_all=True)])
        check("user.gpgkeys.get key", gl.user.gpgkeys.get(key.id).key, armored)
        key.delete()
        expect_error("user.gpgkeys.get of a deleted key", lambda: gl.user.gpgkeys.get(key.id),
                     gitlab.exceptions.GitlabGetError, 404)

        theirs = self.gpg.public_key(f"Py User <{user.email}>")
        other = user.gpgkeys.create({"key": theirs})
        check("users[id].gpgkeys.create key", other.key, theirs)
        check("users[id].gpgkeys.list", [k.id for k in user.gpgkeys.list(get_all=True)], [other.id])
        check("users[id].gpgkeys.get key", user.gpgkeys.get(other.id).key, theirs)
        user.gpgkeys.delete(other.id)
        check("users[id].gpgkeys.list after delete", user.gpgkeys.list(get_all=True), [])
        return "current user and another user: create, list, get, delete"

    def emails(self):
        gl, user = self.gl, self.user
        email = gl.user.emails.create({"email": "py-root-second@example.com"})
        check("user.emails.create email", email.email, "py-root-second@example.com")
        check_true("user.emails.list includes it", email.id in [e.id for e in gl.user.emails.list(get_all=True)])
        check("user.emails.get email", gl.user.emails.get(email.id).email, "py-root-second@example.com")
        expect_error("user.emails.create with a taken address",
                     lambda: gl.user.emails.create({"email": "py-root-second@example.com"}),
                     gitlab.exceptions.GitlabCreateError, 400, {"email": ["has already been taken"]})
        email.delete()
        expect_error("user.emails.get of a deleted e-mail", lambda: gl.user.emails.get(email.id),
                     gitlab.exceptions.GitlabGetError, 404)

        other = user.emails.create({"email": "py-user-second@example.com"})
        check("users[id].emails.create email", other.email, "py-user-second@example.com")
        check("users[id].emails.list", [(e.id, e.email) for e in user.emails.list(get_all=True)],
              [(other.id, "py-user-second@example.com")])
        check("users[id].emails.get email", user.emails.get(other.id).email, "py-user-second@example.com")
        user.emails.delete(other.id)
        check("users[id].emails.list after delete", user.emails.list(get_all=True), [])
        return "current user and another user: create, list, get, delete"

    def custom_attributes(self):
        gl, user = self.gl, self.user
        attribute = user.customattributes.set("py-team", "tools")
        check("customattributes.set key", attribute.key, "py-team")
        check("customattributes.set value", attribute.value, "tools")
        check("customattributes.get value", user.customattributes.get("py-team").value, "tools")
        check("customattributes.set (update) value", user.customattributes.set("py-team", "infra").value, "infra")
        user.customattributes.set("py-site", "lisbon")
        check("customattributes.list", sorted((a.key, a.value) for a in user.customattributes.list(get_all=True)),
              [("py-site", "lisbon"), ("py-team", "infra")])
        check("users.list(custom_attributes={...})",
              [u.id for u in gl.users.list(custom_attributes={"py-team": "infra"}, get_all=True)], [user.id])
        shown = gl.users.get(user.id, with_custom_attributes=True)
        check("users.get(with_custom_attributes=True).custom_attributes",
              sorted((a["key"], a["value"]) for a in shown.custom_attributes), [("py-site", "lisbon"), ("py-team", "infra")])
        user.customattributes.delete("py-team")
        user.customattributes.get("py-site").delete()
        expect_error("customattributes.get of a deleted attribute", lambda: user.customattributes.get("py-team"),
                     gitlab.exceptions.GitlabGetError, 404)
        check("customattributes.list after delete", user.customattributes.list(get_all=True), [])
        return "set, get, update, list, filter users, delete"

    def personal_access_tokens(self):
        gl, user = self.gl, self.user
        expires = future_date(45)
        pat = user.personal_access_tokens.create({"name": "py-pat", "scopes": ["api", "read_user"], "expires_at": expires})
        check("personal_access_tokens.create name", pat.name, "py-pat")
        check("personal_access_tokens.create scopes", pat.scopes, ["api", "read_user"])
        check("personal_access_tokens.create expires_at", pat.expires_at, expires)
        check("personal_access_tokens.create user_id", pat.user_id, user.id)
        check("personal_access_tokens.create active", pat.active, True)
        check("personal_access_tokens.create revoked", pat.revoked, False)
        check_true("personal_access_tokens.create token", isinstance(pat.token, str) and len(pat.token) >= 20, repr(pat.token))

        as_user = self.client(pat.token)
        as_user.auth()
        check("auth() with the new token: username", as_user.user.username, user.username)
        check("personal_access_tokens.list as the user", [t.id for t in as_user.personal_access_tokens.list(get_all=True)],
              [pat.id])
        check_true("personal_access_tokens.list as an administrator shows every user's tokens",
                   pat.id in [t.id for t in gl.personal_access_tokens.list(get_all=True)])
        listed = gl.personal_access_tokens.list(user_id=user.id, get_all=True)
        check("personal_access_tokens.list(user_id=...)", [(t.id, t.name, t.active) for t in listed], [(pat.id, "py-pat", True)])
        check_true("a listed token hides its secret", not hasattr(listed[0], "token") or listed[0].token is None)

        reader = user.personal_access_tokens.create({"name": "py-reader", "scopes": ["read_user"]})
        check("personal_access_tokens.create without expires_at", reader.expires_at, None)
        as_reader = self.client(reader.token)
        as_reader.auth()
        check("auth() with a read_user token", as_reader.user.username, user.username)
        expect_error("a read_user token writing", lambda: as_reader.user.emails.create({"email": "py-reader@example.com"}),
                     gitlab.exceptions.GitlabCreateError, 403)

        expect_error("a read_user token revoking itself", lambda: as_reader.personal_access_tokens.delete(reader.id),
                     gitlab.exceptions.GitlabDeleteError, 403)
        as_user.personal_access_tokens.delete(reader.id)  # the user revokes its own token with an api token
        expect_error("auth() with a token its owner revoked", lambda: self.client(reader.token).auth(),
                     gitlab.exceptions.GitlabAuthenticationError, 401)

        gl.personal_access_tokens.delete(pat.id)  # root revokes the user's token
        revoked = [t for t in gl.personal_access_tokens.list(user_id=user.id, get_all=True) if t.id == pat.id]
        check("personal_access_tokens.list after revoke: revoked", [t.revoked for t in revoked], [True])
        check("personal_access_tokens.list after revoke: active", [t.active for t in revoked], [False])
        expect_error("auth() with a revoked token", lambda: self.client(pat.token).auth(),
                     gitlab.exceptions.GitlabAuthenticationError, 401)
        return "create with expiry, use, list, revoke"

    def impersonation_tokens(self):
        user = self.user
        expires = future_date(30)
        token = user.impersonationtokens.create({"name": "py-imp", "scopes": ["api"], "expires_at": expires})
        check("impersonationtokens.create name", token.name, "py-imp")
        check("impersonationtokens.create scopes", token.scopes, ["api"])
        check("impersonationtokens.create expires_at", token.expires_at, expires)
        check("impersonationtokens.create impersonation", token.impersonation, True)
        check("impersonationtokens.create active", token.active, True)
        check_true("impersonationtokens.create token", isinstance(token.token, str) and len(token.token) >= 20)

        impersonating = self.client(token.token)
        impersonating.auth()
        check("auth() with the impersonation token", impersonating.user.username, user.username)
        check("impersonationtokens.list(state='active')", [t.id for t in user.impersonationtokens.list(state="active", get_all=True)],
              [token.id])
        shown = user.impersonationtokens.get(token.id)
        check("impersonationtokens.get name", shown.name, "py-imp")
        check("impersonationtokens.get revoked", shown.revoked, False)

        shown.delete()
        after = user.impersonationtokens.get(token.id)
        check("impersonationtokens.get after revoke: revoked", after.revoked, True)
        check("impersonationtokens.get after revoke: active", after.active, False)
        check("impersonationtokens.list(state='inactive')", [t.id for t in user.impersonationtokens.list(state="inactive", get_all=True)],
              [token.id])
        check("impersonationtokens.list(state='active') after revoke", user.impersonationtokens.list(state="active", get_all=True), [])
        expect_error("auth() with a revoked impersonation token", lambda: self.client(token.token).auth(),
                     gitlab.exceptions.GitlabAuthenticationError, 401)
        return "create with expiry, use, list, get, revoke"

    def sudo(self):
        gl, user = self.gl, self.user
        current = CurrentUserManager(gl)
        check("GET /user with sudo=<username>", current.get(sudo=user.username).username, user.username)
        check("GET /user with sudo=<id>", current.get(sudo=user.id).id, user.id)
        email = gl.user.emails.create({"email": "py-sudo@example.com"}, sudo=user.username)
        check("user.emails.create(sudo=...) email", email.email, "py-sudo@example.com")
        check("the user's e-mails (as root)", [e.email for e in user.emails.list(get_all=True)], ["py-sudo@example.com"])
        check("user.emails.list(sudo=<id>)", [e.id for e in gl.user.emails.list(sudo=user.id, get_all=True)], [email.id])
        check_true("root's own e-mails are not the user's", email.id not in [e.id for e in gl.user.emails.list(get_all=True)])
        gl.user.emails.delete(email.id, sudo=user.id)
        check("the user's e-mails after a sudo delete", user.emails.list(get_all=True), [])

        expect_error("sudo to an unknown user", lambda: current.get(sudo="py-nobody"),
                     gitlab.exceptions.GitlabGetError, 404, "404 Not Found: No user id or username for: py-nobody")
        plain = user.personal_access_tokens.create({"name": "py-plain", "scopes": ["api"]})
        expect_error("sudo by a non-administrator", lambda: CurrentUserManager(self.client(plain.token)).get(sudo="root"),
                     gitlab.exceptions.GitlabGetError, 403, "403 Forbidden - Must be admin to use sudo")
        gl.personal_access_tokens.delete(plain.id)
        return "as another user by username and id; errors"

    def as_user(self, user, name):
        """A client of `user`, with a personal access token root makes for it."""
        token = user.personal_access_tokens.create({"name": name, "scopes": ["api"]})
        return self.client(token.token)

    def wait_gone(self, what, get):
        """`get` must end in a 404: the original service deletes projects and groups in the background."""
        deadline = time.monotonic() + 10
        while True:
            try:
                get()
            except gitlab.exceptions.GitlabGetError as error:
                check(f"{what}: status", error.response_code, 404)
                return
            if time.monotonic() > deadline:
                raise Failure(f"{what}: still found after 10 s")
            time.sleep(0.2)

    def projects(self):
        gl, user = self.gl, self.user
        as_user = self.as_user(user, "py-projects")
        project = gl.projects.create({"name": "Py Project", "description": "Made by python-gitlab", "visibility": "private",
                                      "tag_list": ["python", "client"], "issues_enabled": False})
        check("projects.create path (made from the name)", project.path, "py-project")
        check("projects.create path_with_namespace", project.path_with_namespace, "root/py-project")
        check("projects.create name_with_namespace", project.name_with_namespace, "Administrator / Py Project")
        check("projects.create namespace", {k: project.namespace[k] for k in ("id", "path", "kind", "full_path")},
              {"id": gl.namespaces.get("root").id, "path": "root", "kind": "user", "full_path": "root"})
        check("projects.create description", project.description, "Made by python-gitlab")
        check("projects.create visibility", project.visibility, "private")
        check("projects.create tag_list", project.tag_list, ["python", "client"])
        check("projects.create issues_enabled", project.issues_enabled, False)
        check("projects.create merge_requests_enabled (default)", project.merge_requests_enabled, True)
        check("projects.create owner.id", project.owner["id"], 1)
        check("projects.create creator_id", project.creator_id, 1)
        # Its creator is made a maintainer of a project in a user's namespace, as the original does.
        check("projects.create permissions", project.permissions,
              {"project_access": {"access_level": 40, "notification_level": 3}, "group_access": None})
        check("projects.create default_branch (an empty repository)", project.default_branch, None)
        check("projects.create star_count", project.star_count, 0)
        check_datetime("projects.create created_at", project.created_at)
        check_true("projects.create web_url", project.web_url == f"{self.url}/root/py-project", project.web_url)
        check_true("projects.create http_url_to_repo", project.http_url_to_repo == f"{self.url}/root/py-project.git",
                   project.http_url_to_repo)

        expect_error("projects.create with a taken name", lambda: gl.projects.create({"name": "Py Project"}),
                     gitlab.exceptions.GitlabCreateError, 400, {"name": ["has already been taken"], "path": ["has already been taken"]})
        expect_error("projects.create without name and path", lambda: gl.projects.create({}),
                     gitlab.exceptions.GitlabCreateError, 400,
                     '400 (Bad request) "name, path" are missing, at least one parameter must be provided')
        expect_error("projects.create with a wrong visibility", lambda: gl.projects.create({"name": "py-bad", "visibility": "secret"}),
                     gitlab.exceptions.GitlabCreateError, 400, {"visibility": ["does not have a valid value"]})

        check("projects.get by id: path_with_namespace", gl.projects.get(project.id).path_with_namespace, "root/py-project")
        check("projects.get by full path: id", gl.projects.get("root/py-project").id, project.id)
        statistics = gl.projects.get(project.id, statistics=True).statistics
        check("projects.get(statistics=True) keys", sorted(statistics),
              ["commit_count", "job_artifacts_size", "lfs_objects_size", "repository_size", "storage_size"])
        check("projects.get(statistics=True) commit_count", statistics["commit_count"], 0)
        # A private project is not there for a user who is not its member: 404, never 403.
        expect_error("projects.get of a private project by a non-member", lambda: as_user.projects.get(project.id),
                     gitlab.exceptions.GitlabGetError, 404, "404 Project Not Found")
        expect_error("projects.get by full path by a non-member", lambda: as_user.projects.get("root/py-project"),
                     gitlab.exceptions.GitlabGetError, 404, "404 Project Not Found")

        # save() sends what changed only.
        project.description = "Changed by python-gitlab"
        project.visibility = "internal"
        project.merge_requests_enabled = False
        project.save()
        check("project.save() description", project.description, "Changed by python-gitlab")
        again = gl.projects.get(project.id)
        check("projects.get after save: visibility", again.visibility, "internal")
        check("projects.get after save: merge_requests_enabled", again.merge_requests_enabled, False)
        check("projects.get after save: tag_list kept", again.tag_list, ["python", "client"])
        # Internal now: the other user sees it, and may not change or delete it.
        seen = as_user.projects.get(project.id)
        check("projects.get of an internal project by a non-member: permissions", seen.permissions,
              {"project_access": None, "group_access": None})
        seen.description = "Not mine"
        expect_error("project.save() by a non-member", seen.save, gitlab.exceptions.GitlabUpdateError, 403, "403 Forbidden")
        expect_error("project.delete() by a non-member", seen.delete, gitlab.exceptions.GitlabDeleteError, 403, "403 Forbidden")
        expect_error("projects.update with a wrong visibility", lambda: gl.projects.update(project.id, {"visibility": "secret"}),
                     gitlab.exceptions.GitlabUpdateError, 400, {"visibility": ["does not have a valid value"]})
        # Renamed, the project is found under its new path only.
        project.name = "Py Project Renamed"
        project.path = "py-project.renamed"
        project.save()
        check("project.save() renaming: path_with_namespace", project.path_with_namespace, "root/py-project.renamed")
        check("project.save() renaming: name_with_namespace", project.name_with_namespace, "Administrator / Py Project Renamed")
        check("projects.get by the new full path", gl.projects.get("root/py-project.renamed").id, project.id)
        expect_error("projects.get by the old full path", lambda: gl.projects.get("root/py-project"),
                     gitlab.exceptions.GitlabGetError, 404, "404 Project Not Found")

        # star() and unstar() update the object from the answer; a second one is 304 (Not Modified) with no body.
        project.star()
        check("project.star() star_count", project.star_count, 1)
        expect_error("project.star() twice", project.star, gitlab.exceptions.GitlabCreateError, 304)
        check("projects.list(starred=True)", [p.id for p in gl.projects.list(starred=True, get_all=True)], [project.id])
        seen.star()
        check("project.star() by another user: star_count", seen.star_count, 2)
        project.unstar()
        check("project.unstar() star_count", project.star_count, 1)
        expect_error("project.unstar() twice", project.unstar, gitlab.exceptions.GitlabDeleteError, 304)
        check("projects.list(starred=True) after unstar", gl.projects.list(starred=True, get_all=True), [])

        listed = [gl.projects.create({"name": f"py-list-{v}", "visibility": v, "description": f"A {v} project"})
                  for v in ("public", "internal", "private")]
        # The library's own pagination over the project list.
        pages = gl.projects.list(search="py-list-", per_page=2, iterator=True)
        check("projects.list(iterator=True).total", pages.total, 3)
        check("projects.list(iterator=True).total_pages", pages.total_pages, 2)
        check("projects.list(iterator=True) paths across 2 pages", sorted(p.path for p in pages),
              ["py-list-internal", "py-list-private", "py-list-public"])
        check("projects.list(order_by='name', sort='asc')",
              [p.path for p in gl.projects.list(search="py-list-", order_by="name", sort="asc", get_all=True)],
              ["py-list-internal", "py-list-private", "py-list-public"])
        check("projects.list(order_by='id', sort='desc')",
              [p.id for p in gl.projects.list(search="py-list-", order_by="id", sort="desc", get_all=True)],
              [p.id for p in reversed(listed)])
        check("projects.list(visibility='internal')",
              [p.path for p in gl.projects.list(search="py-list-", visibility="internal", get_all=True)], ["py-list-internal"])
        check("projects.list(search=<description>)",
              [p.path for p in gl.projects.list(search="A private project", get_all=True)], ["py-list-private"])
        simple = gl.projects.list(search="py-list-public", simple=True, get_all=True)
        check("projects.list(simple=True) path_with_namespace", [p.path_with_namespace for p in simple], ["root/py-list-public"])
        check_true("projects.list(simple=True) leaves out permissions", "permissions" not in simple[0].attributes)
        check("projects.list(owned=True)", len(gl.projects.list(search="py-list-", owned=True, get_all=True)), 3)
        check("projects.list(membership=True)", len(gl.projects.list(search="py-list-", membership=True, get_all=True)), 3)
        check("projects.list by a non-member", sorted(p.path for p in as_user.projects.list(search="py-list-", get_all=True)),
              ["py-list-internal", "py-list-public"])
        check("projects.list(owned=True) by a non-member", as_user.projects.list(search="py-list-", owned=True, get_all=True), [])
        check("projects.list without a token", [p.path for p in gitlab.Gitlab(self.url).projects.list(search="py-list-", get_all=True)],
              ["py-list-public"])
        check("project.users.list()", [u.username for u in listed[0].users.list(get_all=True)], ["root"])

        # An administrator creates a project in a user's namespace, as the user.
        theirs = user.projects.create({"name": "Py For User", "visibility": "private"})
        check("user.projects.create namespace", (theirs.namespace["kind"], theirs.namespace["path"]), ("user", user.username))
        check("user.projects.create owner.id", theirs.owner["id"], user.id)
        check("user.projects.list()", [p.id for p in user.projects.list(get_all=True)], [theirs.id])
        check("user.projects.list() as the user", [p.id for p in as_user.users.get(user.id).projects.list(get_all=True)],
              [theirs.id])
        check("projects.list(owned=True) by the user", [p.id for p in as_user.projects.list(owned=True, get_all=True)], [theirs.id])
        check("the user's private project, as the user: permissions", as_user.projects.get(theirs.id).permissions["project_access"],
              {"access_level": 40, "notification_level": 3})

        for doomed in listed:
            doomed.delete()
        gl.projects.delete(theirs.id)  # a UserProject has no delete() of its own
        project.delete()
        self.wait_gone("projects.get of a deleted project", lambda: gl.projects.get(project.id))
        check("projects.list after delete", gl.projects.list(search="py-list-", get_all=True), [])
        return "create, get by id and path, statistics, save, rename, star/unstar, list 2 pages with filters, for a user, delete"

    def groups(self):
        gl, user = self.gl, self.user
        as_user = self.as_user(user, "py-groups")
        group = gl.groups.create({"name": "Py Team", "path": "py-team", "description": "Made by python-gitlab",
                                  "visibility": "internal", "request_access_enabled": True})
        check("groups.create name", group.name, "Py Team")
        check("groups.create path", group.path, "py-team")
        check("groups.create description", group.description, "Made by python-gitlab")
        check("groups.create visibility", group.visibility, "internal")
        check("groups.create request_access_enabled", group.request_access_enabled, True)
        check("groups.create full_path", group.full_path, "py-team")
        check("groups.create full_name", group.full_name, "Py Team")
        check("groups.create parent_id", group.parent_id, None)
        check_true("groups.create web_url", group.web_url == f"{self.url}/groups/py-team", group.web_url)
        # The group's `projects` and `shared_projects` are shadowed by python-gitlab's managers of the same name.
        check("groups.create projects", group.attributes["projects"], [])

        core = gl.groups.create({"name": "Py Team Core", "path": "py-team-core", "parent_id": group.id})
        check("groups.create (subgroup) full_path", core.full_path, "py-team/py-team-core")
        check("groups.create (subgroup) full_name", core.full_name, "Py Team / Py Team Core")
        check("groups.create (subgroup) parent_id", core.parent_id, group.id)
        check("groups.create (subgroup) visibility (the default)", core.visibility, "private")
        check_true("groups.create (subgroup) web_url", core.web_url == f"{self.url}/groups/py-team/py-team-core", core.web_url)
        site = gl.groups.create({"name": "Py Team Site", "path": "py-team-site", "visibility": "public"})

        expect_error("groups.create with a taken path", lambda: gl.groups.create({"name": "Py Team", "path": "py-team"}),
                     gitlab.exceptions.GitlabCreateError, 400, {"name": ["has already been taken"], "path": ["has already been taken"]})
        expect_error("groups.create with a wrong visibility",
                     lambda: gl.groups.create({"name": "py-bad", "path": "py-bad", "visibility": "secret"}),
                     gitlab.exceptions.GitlabCreateError, 400, {"visibility": ["does not have a valid value"]})
        expect_error("groups.create of a subgroup by a non-member",
                     lambda: as_user.groups.create({"name": "Py Intruder", "path": "py-intruder", "parent_id": group.id}),
                     gitlab.exceptions.GitlabCreateError, 403, "403 Forbidden")

        pages = gl.groups.list(search="py-team", per_page=2, iterator=True)
        check("groups.list(iterator=True).total", pages.total, 3)
        check("groups.list(iterator=True).total_pages", pages.total_pages, 2)
        check("groups.list(iterator=True) full paths across 2 pages", sorted(g.full_path for g in pages),
              ["py-team", "py-team-site", "py-team/py-team-core"])
        check("groups.list(order_by='path', sort='desc')",
              [g.path for g in gl.groups.list(search="py-team", order_by="path", sort="desc", get_all=True)],
              ["py-team-site", "py-team-core", "py-team"])
        check("groups.list(skip_groups=[...])",
              sorted(g.path for g in gl.groups.list(search="py-team", skip_groups=[site.id, core.id], get_all=True)), ["py-team"])
        check("groups.list(owned=True)", len(gl.groups.list(search="py-team", owned=True, get_all=True)), 3)
        with_statistics = gl.groups.list(search="py-team-site", statistics=True, get_all=True)
        check("groups.list(statistics=True) storage_size", [g.statistics["storage_size"] for g in with_statistics], [0])
        check("groups.list by a non-member", as_user.groups.list(search="py-team", get_all=True), [])
        check("groups.list(all_available=True) by a non-member",
              sorted(g.path for g in as_user.groups.list(search="py-team", all_available=True, get_all=True)),
              ["py-team", "py-team-site"])
        check("groups.list without a token", [g.path for g in gitlab.Gitlab(self.url).groups.list(search="py-team", get_all=True)],
              ["py-team-site"])

        # group.subgroups.list() (GET /groups/:id/subgroups) came to the original after this API version: not here.
        check("groups.get by full path: id", gl.groups.get("py-team/py-team-core").id, core.id)
        expect_error("groups.get of a private subgroup by a non-member", lambda: as_user.groups.get(core.id),
                     gitlab.exceptions.GitlabGetError, 404, "404 Group Not Found")
        group.description = "Changed by python-gitlab"
        group.request_access_enabled = False
        group.save()
        check("group.save() description", group.description, "Changed by python-gitlab")
        check("groups.get after save: request_access_enabled", gl.groups.get(group.id).request_access_enabled, False)
        seen = as_user.groups.get(group.id)
        seen.description = "Not mine"
        expect_error("group.save() by a non-member", seen.save, gitlab.exceptions.GitlabUpdateError, 403, "403 Forbidden")

        app = gl.projects.create({"name": "Py Team App", "namespace_id": group.id, "visibility": "internal"})
        check("projects.create in a group: path_with_namespace", app.path_with_namespace, "py-team/py-team-app")
        check("projects.create in a group: namespace", (app.namespace["kind"], app.namespace["full_path"]), ("group", "py-team"))
        check("projects.create in a group: owner", app.owner, None)
        check("group.projects.list()", [p.id for p in group.projects.list(get_all=True)], [app.id])
        check("groups.get projects", [p["id"] for p in gl.groups.get(group.id).attributes["projects"]], [app.id])

        # project.transfer() moves a project to a namespace by path (PUT /projects/:id/transfer; transfer_project() is its
        # deprecated alias in python-gitlab 3.12); group.transfer_project() moves one into the group
        # (POST /groups/:id/projects/:project_id, administrators only).
        mover = gl.projects.create({"name": "Py Mover"})
        mover.transfer("py-team")
        check("project.transfer() path_with_namespace", gl.projects.get(mover.id).path_with_namespace, "py-team/py-mover")
        expect_error("project.transfer() to no namespace", lambda: mover.transfer("py-nowhere"),
                     gitlab.exceptions.GitlabTransferProjectError, 404, "404 Namespace Not Found")
        expect_error("group.transfer_project() by a non-administrator", lambda: seen.transfer_project(mover.id),
                     gitlab.exceptions.GitlabTransferProjectError, 403)
        core.transfer_project(mover.id)
        mover = gl.projects.get(mover.id)
        check("group.transfer_project() path_with_namespace", mover.path_with_namespace, "py-team/py-team-core/py-mover")
        check("group.transfer_project() name_with_namespace", mover.name_with_namespace, "Py Team / Py Team Core / Py Mover")
        check("group.projects.list(include_subgroups=True)",
              sorted(p.path for p in group.projects.list(include_subgroups=True, get_all=True)), ["py-mover", "py-team-app"])

        # Sharing a project with a group: the group sees it among its shared projects.
        expires = future_date(90)
        app.share(site.id, 30, expires_at=expires)
        check("project.share() shared_with_groups", gl.projects.get(app.id).shared_with_groups,
              [{"group_id": site.id, "group_name": "Py Team Site", "group_access_level": 30}])
        check("groups.get shared_projects", [p["id"] for p in gl.groups.get(site.id).attributes["shared_projects"]], [app.id])
        check("group.projects.list() with shared projects", [p.id for p in site.projects.list(get_all=True)], [app.id])
        check("group.projects.list(with_shared=False)", site.projects.list(with_shared=False, get_all=True), [])
        expect_error("project.share() twice", lambda: app.share(site.id, 20),
                     gitlab.exceptions.GitlabCreateError, 409, "Group already shared with this group")
        expect_error("project.share() with a wrong level", lambda: app.share(core.id, 50),
                     gitlab.exceptions.GitlabCreateError, 400)
        app.unshare(site.id)
        check("project.unshare() shared_with_groups", gl.projects.get(app.id).shared_with_groups, [])
        expect_error("project.unshare() twice", lambda: app.unshare(site.id), gitlab.exceptions.GitlabDeleteError, 404)

        # Deleting a group deletes the projects in it.
        page = gl.projects.create({"name": "Py Site Page", "namespace_id": site.id})
        site.delete()
        self.wait_gone("groups.get of a deleted group", lambda: gl.groups.get(site.id))
        self.wait_gone("projects.get of a project of a deleted group", lambda: gl.projects.get(page.id))
        self.group, self.subgroup, self.group_project, self.private_project = group, core, app, mover
        return "create with a subgroup, list 2 pages with filters, get by path, save, projects, transfer both ways, share, delete"

    def members(self):
        gl = self.gl
        group, core, app, mover = self.group, self.subgroup, self.group_project, self.private_project
        member = self.new_user("py-member")
        as_member = self.as_user(member, "py-member")

        # A project's members.
        expires = future_date(60)
        added = app.members.create({"user_id": member.id, "access_level": 30, "expires_at": expires})
        check("project.members.create username", added.username, "py-member")
        check("project.members.create access_level", added.access_level, 30)
        check("project.members.create expires_at", added.expires_at, expires)
        check("project.members.create state", added.state, "active")
        expect_error("project.members.create of a member", lambda: app.members.create({"user_id": member.id, "access_level": 20}),
                     gitlab.exceptions.GitlabCreateError, 409, "Member already exists")
        expect_error("project.members.create with the owner level", lambda: app.members.create({"user_id": self.user.id, "access_level": 50}),
                     gitlab.exceptions.GitlabCreateError, 400, {"access_level": ["is not included in the list"]})
        expect_error("project.members.create with a past expiry",
                     lambda: app.members.create({"user_id": self.user.id, "access_level": 20, "expires_at": "2001-01-01"}),
                     gitlab.exceptions.GitlabCreateError, 400, {"expires_at": ["cannot be a date in the past"]})
        check("project.members.list()", [(m.username, m.access_level) for m in app.members.list(get_all=True)], [("py-member", 30)])
        check("project.members.list(query=...)", [m.id for m in app.members.list(query="py-mem", get_all=True)], [member.id])
        check("project.members.get expires_at", app.members.get(member.id).expires_at, expires)
        # The group's owner is a member of its projects through the group.
        check("project.members_all.list()", sorted((m.username, m.access_level) for m in app.members_all.list(get_all=True)),
              [("py-member", 30), ("root", 50)])
        check("project.members_all.get of the group's owner", app.members_all.get(1).access_level, 50)
        expect_error("project.members.get of a member through the group only", lambda: app.members.get(1),
                     gitlab.exceptions.GitlabGetError, 404, "404 Member Not Found")

        shown = app.members.get(member.id)
        shown.access_level = 40
        shown.save()
        check("member.save() access_level", app.members.get(member.id).access_level, 40)
        app.members.update(member.id, {"access_level": 20, "expires_at": future_date(10)})
        check("project.members.update access_level", app.members.get(member.id).access_level, 20)
        check("project.members.update expires_at", app.members.get(member.id).expires_at, future_date(10))
        # The member sees its own level; a reporter may not add members.
        check("the member's permissions", as_member.projects.get(app.id).permissions["project_access"]["access_level"], 20)
        reporter_view = as_member.projects.get(app.id, lazy=True)
        expect_error("project.members.create by a reporter",
                     lambda: reporter_view.members.create({"user_id": self.user.id, "access_level": 10}),
                     gitlab.exceptions.GitlabCreateError, 403, "403 Forbidden")
        check("project.users.list()", sorted(u.username for u in app.users.list(get_all=True)), ["py-member", "root"])
        app.members.get(member.id).delete()
        expect_error("project.members.get of a removed member", lambda: app.members.get(member.id),
                     gitlab.exceptions.GitlabGetError, 404)

        # A group's members, and what they inherit in its subgroups and projects.
        expect_error("projects.get of a private project in a private subgroup by a non-member",
                     lambda: as_member.projects.get(mover.id), gitlab.exceptions.GitlabGetError, 404)
        joined = group.members.create({"user_id": member.id, "access_level": 20})
        check("group.members.create access_level", joined.access_level, 20)
        check("group.members.create expires_at", joined.expires_at, None)
        check("group.members.list()", sorted((m.username, m.access_level) for m in group.members.list(get_all=True)),
              [("py-member", 20), ("root", 50)])
        pages = group.members.list(per_page=1, iterator=True)
        check("group.members.list(iterator=True).total", pages.total, 2)
        check("group.members.list(iterator=True) across 2 pages", sorted(m.username for m in pages), ["py-member", "root"])
        check("group.members.list(user_ids=[...])", [m.id for m in group.members.list(user_ids=[member.id], get_all=True)],
              [member.id])
        check("subgroup.members.list()", [m.username for m in core.members.list(get_all=True)], ["root"])
        check("subgroup.members_all.list()", sorted((m.username, m.access_level) for m in core.members_all.list(get_all=True)),
              [("py-member", 20), ("root", 50)])
        check("subgroup.members_all.get", core.members_all.get(member.id).access_level, 20)
        seen = as_member.projects.get(mover.id)
        check("a private project in a subgroup, for a member of the group: path", seen.path_with_namespace,
              "py-team/py-team-core/py-mover")
        check("project.members_all.list() through two groups",
              [(m.username, m.access_level) for m in mover.members_all.list(user_ids=[member.id], get_all=True)], [("py-member", 20)])
        expect_error("project.members.create below the inherited level",
                     lambda: mover.members.create({"user_id": member.id, "access_level": 10}),
                     gitlab.exceptions.GitlabCreateError, 400,
                     {"access_level": ["should be greater than or equal to Reporter inherited membership from group Py Team"]})
        member_group = as_member.groups.get(group.id, lazy=True)
        expect_error("group.members.create by a reporter",
                     lambda: member_group.members.create({"user_id": self.user.id, "access_level": 10}),
                     gitlab.exceptions.GitlabCreateError, 403, "403 Forbidden")

        shown = group.members.get(member.id)
        shown.access_level = 50
        shown.save()
        check("group member.save() access_level", group.members.get(member.id).access_level, 50)
        group.members.update(member.id, {"access_level": 30, "expires_at": future_date(20)})
        updated = group.members.get(member.id)
        check("group.members.update", (updated.access_level, updated.expires_at), (30, future_date(20)))
        # A member may leave: it removes itself with its own token.
        member_group.members.delete(member.id)
        check("group.members.list() after the member left", [m.username for m in group.members.list(get_all=True)], ["root"])

        # A group keeps an owner.
        solo = gl.groups.create({"name": "Py Solo", "path": "py-solo"})
        expect_error("group.members.delete of the last owner", lambda: solo.members.delete(1),
                     gitlab.exceptions.GitlabDeleteError, 403, "403 Forbidden - A group must have at least one owner")
        expect_error("group.members.update of the last owner", lambda: solo.members.update(1, {"access_level": 40}),
                     gitlab.exceptions.GitlabUpdateError, 403, "403 Forbidden - A group must have at least one owner")
        solo.members.create({"user_id": member.id, "access_level": 50})
        solo.members.update(1, {"access_level": 40})
        check("group.members.update of an owner beside another", solo.members.get(1).access_level, 40)
        solo.delete()
        return "project and group: create, 409, 400, list 2 pages, get, save, update, /all, inherited levels, leave, last owner"

    def namespaces(self):
        gl, user, group, core = self.gl, self.user, self.group, self.subgroup
        own = gl.namespaces.get(group.id)
        check("namespaces.get of a group", (own.kind, own.name, own.path, own.full_path, own.parent_id),
              ("group", "Py Team", "py-team", "py-team", None))
        # Group owners (and maintainers) see how many members the group and its subgroups have.
        check("namespaces.get members_count_with_descendants", own.members_count_with_descendants, 1)
        sub = gl.namespaces.get("py-team/py-team-core")
        check("namespaces.get by full path", (sub.id, sub.kind, sub.full_path, sub.parent_id),
              (core.id, "group", "py-team/py-team-core", group.id))
        personal = gl.namespaces.get(user.username)
        check("namespaces.get of a user", (personal.kind, personal.path, personal.full_path), ("user", user.username, user.username))
        check_true("a user's namespace has no parent_id", "parent_id" not in personal.attributes, personal.attributes)
        check("namespaces.list(search=...)", sorted(n.full_path for n in gl.namespaces.list(search="py-team", get_all=True)),
              ["py-team", "py-team/py-team-core"])

        pages = gl.namespaces.list(search="py-", per_page=2, iterator=True)
        every = gl.namespaces.list(search="py-", get_all=True)
        check_true("namespaces.list(iterator=True) has several pages", pages.total_pages >= 3, pages.total_pages)
        check("namespaces.list(iterator=True).total", pages.total, len(every))
        paths = [n.full_path for n in pages]
        check("namespaces.list(iterator=True) full paths across the pages", sorted(paths), sorted(n.full_path for n in every))
        check_true("namespaces.list(iterator=True) gives each once", len(set(paths)) == len(paths), paths)

        # A user sees its own namespace and its groups' only.
        as_user = self.as_user(user, "py-namespaces")
        check("namespaces.list as a user", [n.full_path for n in as_user.namespaces.list(get_all=True)], [user.username])
        expect_error("namespaces.get of another user's namespace", lambda: as_user.namespaces.get("root"),
                     gitlab.exceptions.GitlabGetError, 404, "404 Namespace Not Found")
        expect_error("namespaces.get of a group it is not a member of", lambda: as_user.namespaces.get(group.id),
                     gitlab.exceptions.GitlabGetError, 404, "404 Namespace Not Found")
        group.members.create({"user_id": user.id, "access_level": 20})
        mine = as_user.namespaces.list(get_all=True)
        # The groups it is a member of itself, not their subgroups, as the original lists them.
        check("namespaces.list as a group member", sorted(n.full_path for n in mine), sorted([user.username, "py-team"]))
        check_true("a reporter is not shown members_count_with_descendants",
                   all("members_count_with_descendants" not in n.attributes for n in mine), [n.attributes for n in mine])
        return "get by id and path, user and group kinds, search, list pages, as a user and a group member"

    def settings(self):
        gl = self.gl
        settings = gl.settings.get()
        original = {name: getattr(settings, name) for name in (
            "default_projects_limit", "signup_enabled", "sign_in_text", "restricted_visibility_levels",
            "default_project_visibility", "terminal_max_session_time", "polling_interval_multiplier",
            "domain_whitelist", "default_branch_protection", "rsa_key_restriction")}
        check("settings.default_projects_limit type", type(settings.default_projects_limit), int)
        check("settings.signup_enabled type", type(settings.signup_enabled), bool)
        check("settings.repository_storages", settings.repository_storages, ["default"])

        settings.default_projects_limit = 42
        settings.signup_enabled = False
        settings.sign_in_text = "Signed in through python-gitlab"
        settings.restricted_visibility_levels = ["public"]
        settings.default_project_visibility = "internal"
        settings.terminal_max_session_time = 600
        settings.polling_interval_multiplier = 2.5
        settings.domain_allowlist = ["example.com", "example.org"]
        settings.default_branch_protection = 1
        settings.rsa_key_restriction = 2048
        settings.save()

        read = gl.settings.get()
        check("settings default_projects_limit", read.default_projects_limit, 42)
        check("settings signup_enabled", read.signup_enabled, False)
        check("settings sign_in_text", read.sign_in_text, "Signed in through python-gitlab")
        check("settings restricted_visibility_levels", read.restricted_visibility_levels, ["public"])
        check("settings default_project_visibility", read.default_project_visibility, "internal")
        check("settings terminal_max_session_time", read.terminal_max_session_time, 600)
        # A decimal: the original service answers it as a JSON string ("2.5").
        check("settings polling_interval_multiplier", float(read.polling_interval_multiplier), 2.5)
        check("settings domain_whitelist (sent as domain_allowlist)", read.domain_whitelist, ["example.com", "example.org"])
        check("settings default_branch_protection", read.default_branch_protection, 1)
        check("settings rsa_key_restriction", read.rsa_key_restriction, 2048)

        expect_error("settings update with a wrong visibility",
                     lambda: gl.settings.update(new_data={"default_project_visibility": "secret"}),
                     gitlab.exceptions.GitlabUpdateError, 400)

        restore = dict(original)
        restore["polling_interval_multiplier"] = float(restore["polling_interval_multiplier"])
        if restore["domain_whitelist"] is None:
            restore["domain_whitelist"] = []
        gl.settings.update(new_data=restore)
        back = gl.settings.get()
        check("settings signup_enabled restored", back.signup_enabled, original["signup_enabled"])
        check("settings default_projects_limit restored", back.default_projects_limit, original["default_projects_limit"])
        return "get, update ten settings of five types, read back, restore"

    def metadata(self):
        check_true("python-gitlab 3.12 has no metadata call", not hasattr(self.gl, "metadata"))
        return "not offered by python-gitlab 3.12 (skipped)"

    def close(self):
        self.gpg.close()


def main():
    url = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("FORGEKIT_URL")
    token = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("FORGEKIT_ROOT_TOKEN")
    if not url or not token:
        print("usage: python_flows.py <server URL> <root private token>", file=sys.stderr)
        return 2
    print(f"python-gitlab {gitlab.__version__} against {url}")
    flows = Flows(url, token)
    steps = [("version", flows.version), ("auth", flows.auth), ("users", flows.users), ("ssh keys", flows.ssh_keys),
             ("gpg keys", flows.gpg_keys), ("e-mails", flows.emails), ("custom attributes", flows.custom_attributes),
             ("personal access tokens", flows.personal_access_tokens),
             ("impersonation tokens", flows.impersonation_tokens), ("sudo", flows.sudo),
             ("projects", flows.projects), ("groups", flows.groups), ("members", flows.members),
             ("namespaces", flows.namespaces), ("application settings", flows.settings), ("metadata", flows.metadata)]
    try:
        for name, step in steps:
            try:
                detail = step()
            except Failure as failure:
                print(f"FAIL {name}: {failure}", flush=True)
                return 1
            except Exception as error:  # an exception the client raised: show where
                print(f"FAIL {name}: {type(error).__name__}: {error}", flush=True)
                traceback.print_exc(file=sys.stdout)
                return 1
            print(f"ok   {name}: {detail}", flush=True)
    finally:
        flows.close()
    print("python-gitlab: all flows passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
