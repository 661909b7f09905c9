// Command go_flows drives go-gitlab (0.73, Debian's golang-github-xanzy-go-gitlab-dev) against a running
// forgekit, through the library's own API.
//
// Usage: go_flows <server URL> <root private token>
// (or FORGEKIT_URL and FORGEKIT_ROOT_TOKEN in the environment)
//
// It prints one line per flow; on the first wrong value or unexpected error it prints what went wrong and
// exits 1. The flows are written as they work against the original service: a failure here is an
// incompatibility of the server, not of the client. Names start with "go-" so that the Python program can
// run against the same server before.
package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/ioutil"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/xanzy/go-gitlab"
)

// failure is what a flow panics with on a wrong value; main reports it and exits 1.
type failure string

func failf(format string, args ...interface{}) { panic(failure(fmt.Sprintf(format, args...))) }

func check(what string, got, want interface{}) {
	if !reflect.DeepEqual(got, want) {
		failf("%s: expected %#v, got %#v", what, want, got)
	}
}

func checkTrue(what string, condition bool, detail ...interface{}) {
	if !condition {
		failf("%s %s", what, fmt.Sprint(detail...))
	}
}

// must fails on an error the client returned, naming the call and showing the server's answer.
func must(what string, err error) {
	if err != nil {
		failf("%s: %v", what, describe(err))
	}
}

func describe(err error) string {
	var apiError *gitlab.ErrorResponse
	if errors.As(err, &apiError) {
		return fmt.Sprintf("%s (body %s)", apiError.Error(), string(apiError.Body))
	}
	return err.Error()
}

// expectError checks that a call failed with the HTTP status (and, when given, go-gitlab's rendering of the
// error body: {"message":"x"} reads "{message: x}").
func expectError(what string, err error, status int, message string) {
	if err == nil {
		failf("%s: expected HTTP %d, but the call succeeded", what, status)
	}
	var apiError *gitlab.ErrorResponse
	if !errors.As(err, &apiError) {
		failf("%s: expected HTTP %d, got the error %v", what, status, err)
	}
	check(what+": status", apiError.Response.StatusCode, status)
	if message != "" {
		check(what+": message", apiError.Message, message)
	}
}

func checkStatus(what string, resp *gitlab.Response, status int) {
	checkTrue(what+": no response", resp != nil)
	check(what+": status", resp.StatusCode, status)
}

// --- test material ---------------------------------------------------------------------------------------

func sshPublicKey(comment string) string {
	public, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	var blob []byte
	for _, part := range [][]byte{[]byte("ssh-ed25519"), public} {
		blob = binary.BigEndian.AppendUint32(blob, uint32(len(part)))
		blob = append(blob, part...)
	}
	return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(blob) + " " + comment
}

// gpg makes real OpenPGP public keys in a throwaway home directory.
type gpg struct{ home string }

func newGpg() *gpg {
	home, err := ioutil.TempDir("", "forgekit-go-gpg-")
	if err != nil {
		panic(err)
	}
	return &gpg{home}
}

func (g *gpg) run(args ...string) string {
	command := exec.Command("gpg", append([]string{"--batch"}, args...)...)
	command.Env = append(os.Environ(), "GNUPGHOME="+g.home)
	output, err := command.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			failf("gpg %v: %v: %s", args, err, exit.Stderr)
		}
		failf("gpg %v: %v", args, err)
	}
	return string(output)
}

func (g *gpg) publicKey(uid string) string {
	g.run("--pinentry-mode", "loopback", "--passphrase", "", "--quick-gen-key", uid, "ed25519", "sign", "never")
	return strings.TrimSpace(g.run("--armor", "--export", uid))
}

func (g *gpg) close() {
	command := exec.Command("gpgconf", "--kill", "gpg-agent")
	command.Env = append(os.Environ(), "GNUPGHOME="+g.home)
	_ = command.Run()
	os.RemoveAll(g.home)
}

// --- the flows -------------------------------------------------------------------------------------------

type flows struct {
	url  string
	root *gitlab.Client
	gpg  *gpg
	user *gitlab.User // the user the later flows work on
	// What the groups flow leaves for the members and namespaces flows: a group, its private subgroup, an internal
	// project in the group and a private one in the subgroup.
	group, subgroup              *gitlab.Group
	groupProject, privateProject *gitlab.Project
}

func (f *flows) client(token string) *gitlab.Client {
	client, err := gitlab.NewClient(token, gitlab.WithBaseURL(f.url), gitlab.WithoutRetries())
	must("gitlab.NewClient", err)
	return client
}

func (f *flows) newUser(username string) (*gitlab.User, *gitlab.Response, error) {
	return f.root.Users.CreateUser(&gitlab.CreateUserOptions{
		Email: gitlab.String(username + "@example.com"), Username: gitlab.String(username), Name: gitlab.String(strings.Title(username)),
		Password: gitlab.String("go-Secret-Passw0rd"), SkipConfirmation: gitlab.Bool(true),
	})
}

func (f *flows) version() string {
	version, _, err := f.root.Version.GetVersion()
	must("Version.GetVersion", err)
	checkTrue("Version.GetVersion version", regexp.MustCompile(`^\d+\.\d+\.\d+`).MatchString(version.Version), version.Version)
	checkTrue("Version.GetVersion revision", version.Revision != "", version.Revision)
	return version.Version + " " + version.Revision
}

func (f *flows) currentUser() string {
	me, _, err := f.root.Users.CurrentUser()
	must("Users.CurrentUser", err)
	check("CurrentUser.ID", me.ID, 1)
	check("CurrentUser.Username", me.Username, "root")
	check("CurrentUser.IsAdmin", me.IsAdmin, true)
	check("CurrentUser.State", me.State, "active")
	checkTrue("CurrentUser.CreatedAt", me.CreatedAt != nil && !me.CreatedAt.IsZero())
	checkTrue("CurrentUser.WebURL", strings.HasSuffix(me.WebURL, "/root"), me.WebURL)
	_, _, err = f.client("go-not-a-token").Users.CurrentUser()
	expectError("a wrong token", err, 401, "{message: 401 Unauthorized}")
	return "root"
}

func (f *flows) users() string {
	var created []*gitlab.User
	for i := 0; i < 5; i++ {
		user, _, err := f.newUser(fmt.Sprintf("go-page-%d", i))
		must("Users.CreateUser", err)
		created = append(created, user)
	}
	first := created[0]
	check("CreateUser Username", first.Username, "go-page-0")
	check("CreateUser Name", first.Name, "Go-Page-0")
	check("CreateUser Email", first.Email, "go-page-0@example.com")
	check("CreateUser State", first.State, "active")
	check("CreateUser IsAdmin", first.IsAdmin, false)
	checkTrue("CreateUser ConfirmedAt (SkipConfirmation)", first.ConfirmedAt != nil)

	// A taken address is reported before a taken username, as the original service does.
	_, resp, err := f.newUser("go-page-0")
	expectError("CreateUser with a taken username and address", err, 409, "{message: Email has already been taken}")
	checkStatus("CreateUser with a taken username and address", resp, 409)
	_, resp, err = f.root.Users.CreateUser(&gitlab.CreateUserOptions{
		Email: gitlab.String("go-page-0-other@example.com"), Username: gitlab.String("go-page-0"), Name: gitlab.String("Other"),
		Password: gitlab.String("go-Secret-Passw0rd"),
	})
	expectError("CreateUser with a taken username", err, 409, "{message: Username has already been taken}")
	checkStatus("CreateUser with a taken username", resp, 409)

	// The library's own pagination: follow Response.NextPage until it is 0.
	opt := &gitlab.ListUsersOptions{ListOptions: gitlab.ListOptions{PerPage: 2, Page: 1}, Search: gitlab.String("go-page-")}
	var names []string
	pages := 0
	for {
		users, resp, err := f.root.Users.ListUsers(opt)
		must("Users.ListUsers", err)
		pages++
		check(fmt.Sprintf("ListUsers page %d: TotalItems", pages), resp.TotalItems, 5)
		check(fmt.Sprintf("ListUsers page %d: TotalPages", pages), resp.TotalPages, 3)
		check(fmt.Sprintf("ListUsers page %d: ItemsPerPage", pages), resp.ItemsPerPage, 2)
		check(fmt.Sprintf("ListUsers page %d: CurrentPage", pages), resp.CurrentPage, pages)
		for _, user := range users {
			names = append(names, user.Username)
		}
		if resp.NextPage == 0 {
			break
		}
		check(fmt.Sprintf("ListUsers page %d: NextPage", pages), resp.NextPage, pages+1)
		opt.Page = resp.NextPage
	}
	check("ListUsers pages", pages, 3)
	sort.Strings(names)
	check("ListUsers usernames across the pages", names, []string{"go-page-0", "go-page-1", "go-page-2", "go-page-3", "go-page-4"})

	ordered, _, err := f.root.Users.ListUsers(&gitlab.ListUsersOptions{Search: gitlab.String("go-page-"), OrderBy: gitlab.String("username"), Sort: gitlab.String("desc")})
	must("Users.ListUsers ordered", err)
	var order []string
	for _, user := range ordered {
		order = append(order, user.Username)
	}
	check("ListUsers OrderBy username, Sort desc", order, []string{"go-page-4", "go-page-3", "go-page-2", "go-page-1", "go-page-0"})
	byName, _, err := f.root.Users.ListUsers(&gitlab.ListUsersOptions{Username: gitlab.String("go-page-3")})
	must("Users.ListUsers by username", err)
	checkTrue("ListUsers Username", len(byName) == 1 && byName[0].ID == created[3].ID, byName)

	yesterday := time.Now().Add(-24 * time.Hour)
	after, _, err := f.root.Users.ListUsers(&gitlab.ListUsersOptions{Search: gitlab.String("go-page-"), CreatedAfter: &yesterday})
	must("Users.ListUsers CreatedAfter", err)
	check("ListUsers CreatedAfter yesterday", len(after), 5)
	before, _, err := f.root.Users.ListUsers(&gitlab.ListUsersOptions{Search: gitlab.String("go-page-"), CreatedBefore: &yesterday})
	must("Users.ListUsers CreatedBefore", err)
	check("ListUsers CreatedBefore yesterday", len(before), 0)
	active, _, err := f.root.Users.ListUsers(&gitlab.ListUsersOptions{Search: gitlab.String("go-page-"), Active: gitlab.Bool(true)})
	must("Users.ListUsers Active", err)
	check("ListUsers Active", len(active), 5)
	admins, _, err := f.root.Users.ListUsers(&gitlab.ListUsersOptions{Admins: gitlab.Bool(true)})
	must("Users.ListUsers Admins", err)
	checkTrue("ListUsers Admins gives root only", len(admins) == 1 && admins[0].Username == "root", usernames(admins))

	user, _, err := f.root.Users.GetUser(first.ID, gitlab.GetUsersOptions{})
	must("Users.GetUser", err)
	check("GetUser Username", user.Username, "go-page-0")
	check("GetUser Email", user.Email, "go-page-0@example.com")

	modified, _, err := f.root.Users.ModifyUser(first.ID, &gitlab.ModifyUserOptions{
		Name: gitlab.String("Renamed By Go"), Bio: gitlab.String("Written by go-gitlab"), Location: gitlab.String("Porto"),
		Organization: gitlab.String("forgekit"), ProjectsLimit: gitlab.Int(7), CanCreateGroup: gitlab.Bool(false), External: gitlab.Bool(true),
	})
	must("Users.ModifyUser", err)
	check("ModifyUser Name", modified.Name, "Renamed By Go")
	user, _, err = f.root.Users.GetUser(first.ID, gitlab.GetUsersOptions{})
	must("Users.GetUser after ModifyUser", err)
	check("GetUser after ModifyUser: Bio", user.Bio, "Written by go-gitlab")
	check("GetUser after ModifyUser: Location", user.Location, "Porto")
	check("GetUser after ModifyUser: Organization", user.Organization, "forgekit")
	check("GetUser after ModifyUser: ProjectsLimit", user.ProjectsLimit, 7)
	check("GetUser after ModifyUser: CanCreateGroup", user.CanCreateGroup, false)
	check("GetUser after ModifyUser: External", user.External, true)

	// BlockUser and UnblockUser succeed only on 201.
	must("Users.BlockUser", f.root.Users.BlockUser(first.ID))
	user, _, err = f.root.Users.GetUser(first.ID, gitlab.GetUsersOptions{})
	must("Users.GetUser after BlockUser", err)
	check("GetUser after BlockUser: State", user.State, "blocked")
	blocked, _, err := f.root.Users.ListUsers(&gitlab.ListUsersOptions{Blocked: gitlab.Bool(true), Search: gitlab.String("go-page-")})
	must("Users.ListUsers Blocked", err)
	checkTrue("ListUsers Blocked", len(blocked) == 1 && blocked[0].ID == first.ID, blocked)
	must("Users.UnblockUser", f.root.Users.UnblockUser(first.ID))
	user, _, err = f.root.Users.GetUser(first.ID, gitlab.GetUsersOptions{})
	must("Users.GetUser after UnblockUser", err)
	check("GetUser after UnblockUser: State", user.State, "active")

	resp, err = f.root.Users.DeleteUser(created[4].ID)
	must("Users.DeleteUser", err)
	checkStatus("DeleteUser", resp, 204)
	// The original service deletes users in the background: allow it a moment.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		_, resp, err = f.root.Users.GetUser(created[4].ID, gitlab.GetUsersOptions{})
		if err != nil {
			expectError("GetUser of a deleted user", err, 404, "")
			break
		}
		checkTrue("GetUser still finds a deleted user after 10 s", time.Now().Before(deadline))
	}

	f.user = created[1]
	return "create, list 3 pages, order, get, modify, block/unblock, delete"
}

func (f *flows) sshKeys() string {
	mine := sshPublicKey("go-root@forgekit")
	key, resp, err := f.root.Users.AddSSHKey(&gitlab.AddSSHKeyOptions{Title: gitlab.String("go root key"), Key: gitlab.String(mine)})
	must("Users.AddSSHKey", err)
	checkStatus("AddSSHKey", resp, 201)
	check("AddSSHKey Title", key.Title, "go root key")
	check("AddSSHKey Key", key.Key, mine)
	checkTrue("AddSSHKey CreatedAt", key.CreatedAt != nil)
	keys, _, err := f.root.Users.ListSSHKeys()
	must("Users.ListSSHKeys", err)
	found := false
	for _, k := range keys {
		found = found || k.ID == key.ID
	}
	checkTrue("ListSSHKeys includes the key", found)
	shown, _, err := f.root.Users.GetSSHKey(key.ID)
	must("Users.GetSSHKey", err)
	check("GetSSHKey Title", shown.Title, "go root key")
	_, _, err = f.root.Users.AddSSHKey(&gitlab.AddSSHKeyOptions{Title: gitlab.String("again"), Key: gitlab.String(mine)})
	expectError("AddSSHKey with the same key", err, 400, "")
	resp, err = f.root.Users.DeleteSSHKey(key.ID)
	must("Users.DeleteSSHKey", err)
	checkStatus("DeleteSSHKey", resp, 204)
	_, _, err = f.root.Users.GetSSHKey(key.ID)
	expectError("GetSSHKey of a deleted key", err, 404, "")

	theirs := sshPublicKey("go-user@forgekit")
	other, _, err := f.root.Users.AddSSHKeyForUser(f.user.ID, &gitlab.AddSSHKeyOptions{Title: gitlab.String("go user key"), Key: gitlab.String(theirs)})
	must("Users.AddSSHKeyForUser", err)
	check("AddSSHKeyForUser Key", other.Key, theirs)
	listed, _, err := f.root.Users.ListSSHKeysForUser(f.user.ID, &gitlab.ListSSHKeysForUserOptions{})
	must("Users.ListSSHKeysForUser", err)
	checkTrue("ListSSHKeysForUser", len(listed) == 1 && listed[0].ID == other.ID && listed[0].Title == "go user key", listed)
	byName, _, err := f.root.Users.ListSSHKeysForUser(f.user.Username, &gitlab.ListSSHKeysForUserOptions{})
	must("Users.ListSSHKeysForUser by username", err)
	checkTrue("ListSSHKeysForUser by username", len(byName) == 1 && byName[0].ID == other.ID, byName)
	got, _, err := f.root.Users.GetSSHKeyForUser(f.user.ID, other.ID)
	must("Users.GetSSHKeyForUser", err)
	check("GetSSHKeyForUser Title", got.Title, "go user key")
	check("GetSSHKeyForUser Key", got.Key, theirs)
	resp, err = f.root.Users.DeleteSSHKeyForUser(f.user.ID, other.ID)
	must("Users.DeleteSSHKeyForUser", err)
	checkStatus("DeleteSSHKeyForUser", resp, 204)
	listed, _, err = f.root.Users.ListSSHKeysForUser(f.user.ID, &gitlab.ListSSHKeysForUserOptions{})
	must("Users.ListSSHKeysForUser after delete", err)
	check("ListSSHKeysForUser after delete", len(listed), 0)
	return "current user and another user (by id and username): add, list, get, delete"
}

func (f *flows) gpgKeys() string {
	armored := f.gpg.publicKey("Go Root <go-root-gpg@example.com>")
	key, resp, err := f.root.Users.AddGPGKey(&gitlab.AddGPGKeyOptions{Key: gitlab.String(armored)})
	must("Users.AddGPGKey", err)
	checkStatus("AddGPGKey", resp, 201)
	check("AddGPGKey Key", key.Key, armored)
	checkTrue("AddGPGKey CreatedAt", key.CreatedAt != nil)
	keys, _, err := f.root.Users.ListGPGKeys()
	must("Users.ListGPGKeys", err)
	found := false
	for _, k := range keys {
		found = found || k.ID == key.ID
	}
	checkTrue("ListGPGKeys includes the key", found)
	shown, _, err := f.root.Users.GetGPGKey(key.ID)
	must("Users.GetGPGKey", err)
	check("GetGPGKey Key", shown.Key, armored)
	resp, err = f.root.Users.DeleteGPGKey(key.ID)
	must("Users.DeleteGPGKey", err)
	checkStatus("DeleteGPGKey", resp, 204)

	theirs := f.gpg.publicKey("Go User <" + f.user.Email + ">")
	other, _, err := f.root.Users.AddGPGKeyForUser(f.user.ID, &gitlab.AddGPGKeyOptions{Key: gitlab.String(theirs)})
	must("Users.AddGPGKeyForUser", err)
	check("AddGPGKeyForUser Key", other.Key, theirs)
	listed, _, err := f.root.Users.ListGPGKeysForUser(f.user.ID)
	must("Users.ListGPGKeysForUser", err)
	checkTrue("ListGPGKeysForUser", len(listed) == 1 && listed[0].ID == other.ID, listed)
	got, _, err := f.root.Users.GetGPGKeyForUser(f.user.ID, other.ID)
	must("Users.GetGPGKeyForUser", err)
	check("GetGPGKeyForUser Key", got.Key, theirs)
	_, err = f.root.Users.DeleteGPGKeyForUser(f.user.ID, other.ID)
	must("Users.DeleteGPGKeyForUser", err)
	listed, _, err = f.root.Users.ListGPGKeysForUser(f.user.ID)
	must("Users.ListGPGKeysForUser after delete", err)
	check("ListGPGKeysForUser after delete", len(listed), 0)
	return "current user and another user: add, list, get, delete"
}

func (f *flows) emails() string {
	email, resp, err := f.root.Users.AddEmail(&gitlab.AddEmailOptions{Email: gitlab.String("go-root-second@example.com")})
	must("Users.AddEmail", err)
	checkStatus("AddEmail", resp, 201)
	check("AddEmail Email", email.Email, "go-root-second@example.com")
	emails, _, err := f.root.Users.ListEmails()
	must("Users.ListEmails", err)
	found := false
	for _, e := range emails {
		found = found || e.ID == email.ID
	}
	checkTrue("ListEmails includes it", found)
	shown, _, err := f.root.Users.GetEmail(email.ID)
	must("Users.GetEmail", err)
	check("GetEmail Email", shown.Email, "go-root-second@example.com")
	_, _, err = f.root.Users.AddEmail(&gitlab.AddEmailOptions{Email: gitlab.String("go-root-second@example.com")})
	expectError("AddEmail with a taken address", err, 400, "{message: {email: [has already been taken]}}")
	resp, err = f.root.Users.DeleteEmail(email.ID)
	must("Users.DeleteEmail", err)
	checkStatus("DeleteEmail", resp, 204)
	_, _, err = f.root.Users.GetEmail(email.ID)
	expectError("GetEmail of a deleted e-mail", err, 404, "")

	other, _, err := f.root.Users.AddEmailForUser(f.user.ID, &gitlab.AddEmailOptions{Email: gitlab.String("go-user-second@example.com"), SkipConfirmation: gitlab.Bool(true)})
	must("Users.AddEmailForUser", err)
	check("AddEmailForUser Email", other.Email, "go-user-second@example.com")
	listed, _, err := f.root.Users.ListEmailsForUser(f.user.ID, &gitlab.ListEmailsForUserOptions{})
	must("Users.ListEmailsForUser", err)
	checkTrue("ListEmailsForUser", len(listed) == 1 && listed[0].ID == other.ID && listed[0].Email == "go-user-second@example.com", listed)
	resp, err = f.root.Users.DeleteEmailForUser(f.user.ID, other.ID)
	must("Users.DeleteEmailForUser", err)
	checkStatus("DeleteEmailForUser", resp, 204)
	listed, _, err = f.root.Users.ListEmailsForUser(f.user.ID, &gitlab.ListEmailsForUserOptions{})
	must("Users.ListEmailsForUser after delete", err)
	check("ListEmailsForUser after delete", len(listed), 0)
	return "current user and another user: add, list, get, delete"
}

func (f *flows) customAttributes() string {
	attributes := f.root.CustomAttribute
	set, _, err := attributes.SetCustomUserAttribute(f.user.ID, gitlab.CustomAttribute{Key: "go-team", Value: "tools"})
	must("CustomAttribute.SetCustomUserAttribute", err)
	check("SetCustomUserAttribute", *set, gitlab.CustomAttribute{Key: "go-team", Value: "tools"})
	got, _, err := attributes.GetCustomUserAttribute(f.user.ID, "go-team")
	must("CustomAttribute.GetCustomUserAttribute", err)
	check("GetCustomUserAttribute", *got, gitlab.CustomAttribute{Key: "go-team", Value: "tools"})
	set, _, err = attributes.SetCustomUserAttribute(f.user.ID, gitlab.CustomAttribute{Key: "go-team", Value: "infra"})
	must("CustomAttribute.SetCustomUserAttribute (update)", err)
	check("SetCustomUserAttribute (update)", set.Value, "infra")
	_, _, err = attributes.SetCustomUserAttribute(f.user.ID, gitlab.CustomAttribute{Key: "go-site", Value: "porto"})
	must("CustomAttribute.SetCustomUserAttribute (second)", err)
	listed, _, err := attributes.ListCustomUserAttributes(f.user.ID)
	must("CustomAttribute.ListCustomUserAttributes", err)
	var pairs []string
	for _, attribute := range listed {
		pairs = append(pairs, attribute.Key+"="+attribute.Value)
	}
	sort.Strings(pairs)
	check("ListCustomUserAttributes", pairs, []string{"go-site=porto", "go-team=infra"})
	user, _, err := f.root.Users.GetUser(f.user.ID, gitlab.GetUsersOptions{WithCustomAttributes: gitlab.Bool(true)})
	must("Users.GetUser WithCustomAttributes", err)
	check("GetUser WithCustomAttributes: count", len(user.CustomAttributes), 2)
	resp, err := attributes.DeleteCustomUserAttribute(f.user.ID, "go-team")
	must("CustomAttribute.DeleteCustomUserAttribute", err)
	checkStatus("DeleteCustomUserAttribute", resp, 204)
	_, err = attributes.DeleteCustomUserAttribute(f.user.ID, "go-site")
	must("CustomAttribute.DeleteCustomUserAttribute (second)", err)
	_, _, err = attributes.GetCustomUserAttribute(f.user.ID, "go-team")
	expectError("GetCustomUserAttribute of a deleted attribute", err, 404, "")
	listed, _, err = attributes.ListCustomUserAttributes(f.user.ID)
	must("CustomAttribute.ListCustomUserAttributes after delete", err)
	check("ListCustomUserAttributes after delete", len(listed), 0)
	return "set, get, update, list, user with attributes, delete"
}

func (f *flows) personalAccessTokens() string {
	expires := gitlab.ISOTime(time.Now().UTC().AddDate(0, 0, 45))
	pat, resp, err := f.root.Users.CreatePersonalAccessToken(f.user.ID, &gitlab.CreatePersonalAccessTokenOptions{
		Name: gitlab.String("go-pat"), ExpiresAt: &expires, Scopes: &[]string{"api", "read_user"},
	})
	must("Users.CreatePersonalAccessToken", err)
	checkStatus("CreatePersonalAccessToken", resp, 201)
	check("CreatePersonalAccessToken Name", pat.Name, "go-pat")
	check("CreatePersonalAccessToken Scopes", pat.Scopes, []string{"api", "read_user"})
	checkTrue("CreatePersonalAccessToken ExpiresAt", pat.ExpiresAt != nil && pat.ExpiresAt.String() == expires.String(), pat.ExpiresAt)
	check("CreatePersonalAccessToken UserID", pat.UserID, f.user.ID)
	check("CreatePersonalAccessToken Active", pat.Active, true)
	check("CreatePersonalAccessToken Revoked", pat.Revoked, false)
	checkTrue("CreatePersonalAccessToken Token", len(pat.Token) >= 20, pat.Token)

	asUser := f.client(pat.Token)
	me, _, err := asUser.Users.CurrentUser()
	must("Users.CurrentUser with the new token", err)
	check("CurrentUser with the new token", me.Username, f.user.Username)
	own, _, err := asUser.PersonalAccessTokens.ListPersonalAccessTokens(&gitlab.ListPersonalAccessTokensOptions{})
	must("PersonalAccessTokens.ListPersonalAccessTokens as the user", err)
	checkTrue("ListPersonalAccessTokens as the user", len(own) == 1 && own[0].ID == pat.ID && own[0].Token == "", own)
	every, _, err := f.root.PersonalAccessTokens.ListPersonalAccessTokens(&gitlab.ListPersonalAccessTokensOptions{ListOptions: gitlab.ListOptions{PerPage: 100}})
	must("PersonalAccessTokens.ListPersonalAccessTokens as an administrator", err)
	found := false
	for _, t := range every {
		found = found || t.ID == pat.ID
	}
	checkTrue("ListPersonalAccessTokens as an administrator shows every user's tokens", found)
	listed, _, err := f.root.PersonalAccessTokens.ListPersonalAccessTokens(&gitlab.ListPersonalAccessTokensOptions{UserID: gitlab.Int(f.user.ID)})
	must("PersonalAccessTokens.ListPersonalAccessTokens UserID", err)
	checkTrue("ListPersonalAccessTokens UserID", len(listed) == 1 && listed[0].ID == pat.ID && listed[0].Active, listed)

	resp, err = f.root.PersonalAccessTokens.RevokePersonalAccessToken(pat.ID)
	must("PersonalAccessTokens.RevokePersonalAccessToken", err)
	checkStatus("RevokePersonalAccessToken", resp, 204)
	listed, _, err = f.root.PersonalAccessTokens.ListPersonalAccessTokens(&gitlab.ListPersonalAccessTokensOptions{UserID: gitlab.Int(f.user.ID)})
	must("PersonalAccessTokens.ListPersonalAccessTokens after revoke", err)
	checkTrue("ListPersonalAccessTokens after revoke", len(listed) == 1 && listed[0].Revoked && !listed[0].Active, listed)
	_, _, err = asUser.Users.CurrentUser()
	expectError("CurrentUser with a revoked token", err, 401, "")
	return "create with expiry, use, list, revoke"
}

func (f *flows) impersonationTokens() string {
	// go-gitlab sends this expires_at as a full timestamp (2027-01-05T03:00:00Z); the token expires that day.
	day := time.Now().UTC().AddDate(0, 0, 30)
	expires := time.Date(day.Year(), day.Month(), day.Day(), 3, 0, 0, 0, time.UTC)
	token, resp, err := f.root.Users.CreateImpersonationToken(f.user.ID, &gitlab.CreateImpersonationTokenOptions{
		Name: gitlab.String("go-imp"), Scopes: &[]string{"api"}, ExpiresAt: &expires,
	})
	must("Users.CreateImpersonationToken", err)
	checkStatus("CreateImpersonationToken", resp, 201)
	check("CreateImpersonationToken Name", token.Name, "go-imp")
	check("CreateImpersonationToken Scopes", token.Scopes, []string{"api"})
	checkTrue("CreateImpersonationToken ExpiresAt", token.ExpiresAt != nil && token.ExpiresAt.String() == expires.Format("2006-01-02"), token.ExpiresAt)
	check("CreateImpersonationToken Active", token.Active, true)
	checkTrue("CreateImpersonationToken Token", len(token.Token) >= 20, token.Token)

	impersonating := f.client(token.Token)
	me, _, err := impersonating.Users.CurrentUser()
	must("Users.CurrentUser with the impersonation token", err)
	check("CurrentUser with the impersonation token", me.Username, f.user.Username)
	active, _, err := f.root.Users.GetAllImpersonationTokens(f.user.ID, &gitlab.GetAllImpersonationTokensOptions{State: gitlab.String("active")})
	must("Users.GetAllImpersonationTokens", err)
	checkTrue("GetAllImpersonationTokens active", len(active) == 1 && active[0].ID == token.ID && active[0].Token == "", active)
	shown, _, err := f.root.Users.GetImpersonationToken(f.user.ID, token.ID)
	must("Users.GetImpersonationToken", err)
	check("GetImpersonationToken Name", shown.Name, "go-imp")
	check("GetImpersonationToken Revoked", shown.Revoked, false)

	resp, err = f.root.Users.RevokeImpersonationToken(f.user.ID, token.ID)
	must("Users.RevokeImpersonationToken", err)
	checkStatus("RevokeImpersonationToken", resp, 204)
	shown, _, err = f.root.Users.GetImpersonationToken(f.user.ID, token.ID)
	must("Users.GetImpersonationToken after revoke", err)
	check("GetImpersonationToken after revoke: Revoked", shown.Revoked, true)
	check("GetImpersonationToken after revoke: Active", shown.Active, false)
	inactive, _, err := f.root.Users.GetAllImpersonationTokens(f.user.ID, &gitlab.GetAllImpersonationTokensOptions{State: gitlab.String("inactive")})
	must("Users.GetAllImpersonationTokens inactive", err)
	checkTrue("GetAllImpersonationTokens inactive", len(inactive) == 1 && inactive[0].ID == token.ID, inactive)
	_, _, err = impersonating.Users.CurrentUser()
	expectError("CurrentUser with a revoked impersonation token", err, 401, "")
	return "create with expiry timestamp, use, list, get, revoke"
}

func (f *flows) sudo() string {
	me, _, err := f.root.Users.CurrentUser(gitlab.WithSudo(f.user.Username))
	must("Users.CurrentUser WithSudo(username)", err)
	check("CurrentUser WithSudo(username)", me.Username, f.user.Username)
	me, _, err = f.root.Users.CurrentUser(gitlab.WithSudo(f.user.ID))
	must("Users.CurrentUser WithSudo(id)", err)
	check("CurrentUser WithSudo(id)", me.ID, f.user.ID)
	email, _, err := f.root.Users.AddEmail(&gitlab.AddEmailOptions{Email: gitlab.String("go-sudo@example.com")}, gitlab.WithSudo(f.user.ID))
	must("Users.AddEmail WithSudo", err)
	listed, _, err := f.root.Users.ListEmailsForUser(f.user.ID, &gitlab.ListEmailsForUserOptions{})
	must("Users.ListEmailsForUser", err)
	checkTrue("the e-mail added WithSudo is the user's", len(listed) == 1 && listed[0].ID == email.ID, listed)
	mine, _, err := f.root.Users.ListEmails(gitlab.WithSudo(f.user.Username))
	must("Users.ListEmails WithSudo", err)
	checkTrue("ListEmails WithSudo", len(mine) == 1 && mine[0].ID == email.ID, mine)
	_, err = f.root.Users.DeleteEmail(email.ID, gitlab.WithSudo(f.user.Username))
	must("Users.DeleteEmail WithSudo", err)

	_, _, err = f.root.Users.CurrentUser(gitlab.WithSudo("go-nobody"))
	expectError("sudo to an unknown user", err, 404, "{message: 404 Not Found: No user id or username for: go-nobody}")
	plain, _, err := f.root.Users.CreatePersonalAccessToken(f.user.ID, &gitlab.CreatePersonalAccessTokenOptions{Name: gitlab.String("go-plain"), Scopes: &[]string{"api"}})
	must("Users.CreatePersonalAccessToken", err)
	_, _, err = f.client(plain.Token).Users.CurrentUser(gitlab.WithSudo("root"))
	expectError("sudo by a non-administrator", err, 403, "{message: 403 Forbidden - Must be admin to use sudo}")
	_, err = f.root.PersonalAccessTokens.RevokePersonalAccessToken(plain.ID)
	must("PersonalAccessTokens.RevokePersonalAccessToken", err)
	return "as another user by username and id; errors"
}

func (f *flows) oauthPasswordGrant() string {
	const password = "go-OAuth-Passw0rd"
	user, _, err := f.root.Users.CreateUser(&gitlab.CreateUserOptions{
		Email: gitlab.String("go-oauth@example.com"), Username: gitlab.String("go-oauth"), Name: gitlab.String("Go OAuth"),
		Password: gitlab.String(password), SkipConfirmation: gitlab.Bool(true),
	})
	must("Users.CreateUser", err)
	// NewBasicAuthClient signs in with the OAuth 2 password grant (POST /oauth/token) and sends the bearer token.
	client, err := gitlab.NewBasicAuthClient("go-oauth", password, gitlab.WithBaseURL(f.url), gitlab.WithoutRetries())
	must("gitlab.NewBasicAuthClient", err)
	me, _, err := client.Users.CurrentUser()
	must("Users.CurrentUser through the password grant", err)
	check("CurrentUser through the password grant", me.ID, user.ID)
	email, _, err := client.Users.AddEmail(&gitlab.AddEmailOptions{Email: gitlab.String("go-oauth-second@example.com")})
	must("Users.AddEmail through the password grant", err)
	check("AddEmail through the password grant", email.Email, "go-oauth-second@example.com")

	wrong, err := gitlab.NewBasicAuthClient("go-oauth", "not-the-password", gitlab.WithBaseURL(f.url), gitlab.WithoutRetries())
	must("gitlab.NewBasicAuthClient", err)
	_, _, err = wrong.Users.CurrentUser()
	checkTrue("CurrentUser with a wrong password fails", err != nil)
	checkTrue("a wrong password is an OAuth error", strings.Contains(err.Error(), "invalid_grant"), err)
	return "NewBasicAuthClient: token, calls, wrong password"
}

// asUser is a client of the user, with a personal access token root makes for it.
func (f *flows) asUser(user *gitlab.User, name string) *gitlab.Client {
	token, _, err := f.root.Users.CreatePersonalAccessToken(user.ID, &gitlab.CreatePersonalAccessTokenOptions{Name: gitlab.String(name), Scopes: &[]string{"api"}})
	must("Users.CreatePersonalAccessToken", err)
	return f.client(token.Token)
}

// waitGone waits for get to fail with 404: the original service deletes projects and groups in the background.
func waitGone(what string, get func() error) {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if err := get(); err != nil {
			expectError(what, err, 404, "")
			return
		}
		checkTrue(what+": still found after 10 s", time.Now().Before(deadline))
	}
}

func projectIDs(projects []*gitlab.Project) []int {
	ids := []int{}
	for _, project := range projects {
		ids = append(ids, project.ID)
	}
	return ids
}

func projectPaths(projects []*gitlab.Project) []string {
	paths := []string{}
	for _, project := range projects {
		paths = append(paths, project.Path)
	}
	sort.Strings(paths)
	return paths
}

func (f *flows) projects() string {
	asUser := f.asUser(f.user, "go-projects")
	rootNamespace, _, err := f.root.Namespaces.GetNamespace("root")
	must("Namespaces.GetNamespace", err)
	project, resp, err := f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{
		Name: gitlab.String("Go Project"), Description: gitlab.String("Made by go-gitlab"), Visibility: gitlab.Visibility(gitlab.PrivateVisibility),
		TagList: &[]string{"go", "client"}, IssuesEnabled: gitlab.Bool(false),
	})
	must("Projects.CreateProject", err)
	checkStatus("CreateProject", resp, 201)
	check("CreateProject Path (made from the name)", project.Path, "go-project")
	check("CreateProject PathWithNamespace", project.PathWithNamespace, "root/go-project")
	check("CreateProject NameWithNamespace", project.NameWithNamespace, "Administrator / Go Project")
	check("CreateProject Namespace", *project.Namespace, gitlab.ProjectNamespace{ID: rootNamespace.ID, Name: "root", Path: "root", Kind: "user", FullPath: "root"})
	check("CreateProject Description", project.Description, "Made by go-gitlab")
	check("CreateProject Visibility", project.Visibility, gitlab.PrivateVisibility)
	check("CreateProject TagList", project.TagList, []string{"go", "client"})
	check("CreateProject IssuesEnabled", project.IssuesEnabled, false)
	check("CreateProject MergeRequestsEnabled (default)", project.MergeRequestsEnabled, true)
	checkTrue("CreateProject Owner", project.Owner != nil && project.Owner.ID == 1 && project.Owner.Name == "Administrator" && project.Owner.CreatedAt != nil, project.Owner)
	check("CreateProject CreatorID", project.CreatorID, 1)
	// Its creator is made a maintainer of a project in a user's namespace, as the original does.
	check("CreateProject Permissions", *project.Permissions, gitlab.Permissions{
		ProjectAccess: &gitlab.ProjectAccess{AccessLevel: gitlab.MaintainerPermissions, NotificationLevel: gitlab.GlobalNotificationLevel},
	})
	check("CreateProject DefaultBranch (an empty repository)", project.DefaultBranch, "")
	checkTrue("CreateProject CreatedAt", project.CreatedAt != nil && !project.CreatedAt.IsZero(), project.CreatedAt)
	checkTrue("CreateProject LastActivityAt", project.LastActivityAt != nil && !project.LastActivityAt.IsZero(), project.LastActivityAt)
	check("CreateProject WebURL", project.WebURL, f.url+"/root/go-project")
	check("CreateProject HTTPURLToRepo", project.HTTPURLToRepo, f.url+"/root/go-project.git")
	checkTrue("CreateProject Links.Self", project.Links != nil && project.Links.Self == fmt.Sprintf("%s/api/v4/projects/%d", f.url, project.ID), project.Links)

	_, _, err = f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("Go Project")})
	expectError("CreateProject with a taken name", err, 400, "{message: {name: [has already been taken]}, {path: [has already been taken]}}")
	_, _, err = f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{})
	expectError("CreateProject without name and path", err, 400, `{message: 400 (Bad request) "name, path" are missing, at least one parameter must be provided}`)
	_, _, err = f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("go-bad"), Visibility: gitlab.Visibility("secret")})
	expectError("CreateProject with a wrong visibility", err, 400, "{message: {visibility: [does not have a valid value]}}")

	got, _, err := f.root.Projects.GetProject(project.ID, nil)
	must("Projects.GetProject", err)
	check("GetProject PathWithNamespace", got.PathWithNamespace, "root/go-project")
	check("GetProject Statistics (not asked for)", got.Statistics, (*gitlab.Statistics)(nil))
	got, _, err = f.root.Projects.GetProject("root/go-project", &gitlab.GetProjectOptions{Statistics: gitlab.Bool(true)})
	must("Projects.GetProject by full path", err)
	check("GetProject by full path: ID", got.ID, project.ID)
	checkTrue("GetProject Statistics", got.Statistics != nil && got.Statistics.CommitCount == 0, got.Statistics)
	// A private project is not there for a user who is not its member: 404, never 403.
	_, _, err = asUser.Projects.GetProject(project.ID, nil)
	expectError("GetProject of a private project by a non-member", err, 404, "{message: 404 Project Not Found}")
	_, _, err = asUser.Projects.GetProject("root/go-project", nil)
	expectError("GetProject by full path by a non-member", err, 404, "{message: 404 Project Not Found}")

	edited, resp, err := f.root.Projects.EditProject(project.ID, &gitlab.EditProjectOptions{
		Description: gitlab.String("Changed by go-gitlab"), Visibility: gitlab.Visibility(gitlab.InternalVisibility), MergeRequestsEnabled: gitlab.Bool(false),
	})
	must("Projects.EditProject", err)
	checkStatus("EditProject", resp, 200)
	check("EditProject Description", edited.Description, "Changed by go-gitlab")
	got, _, err = f.root.Projects.GetProject(project.ID, nil)
	must("Projects.GetProject after EditProject", err)
	check("GetProject after EditProject: Visibility", got.Visibility, gitlab.InternalVisibility)
	check("GetProject after EditProject: MergeRequestsEnabled", got.MergeRequestsEnabled, false)
	check("GetProject after EditProject: TagList kept", got.TagList, []string{"go", "client"})
	// Internal now: the other user sees it, and may not change or delete it.
	seen, _, err := asUser.Projects.GetProject(project.ID, nil)
	must("Projects.GetProject of an internal project by a non-member", err)
	check("GetProject by a non-member: Permissions", *seen.Permissions, gitlab.Permissions{})
	_, _, err = asUser.Projects.EditProject(project.ID, &gitlab.EditProjectOptions{Description: gitlab.String("Not mine")})
	expectError("EditProject by a non-member", err, 403, "{message: 403 Forbidden}")
	_, err = asUser.Projects.DeleteProject(project.ID)
	expectError("DeleteProject by a non-member", err, 403, "{message: 403 Forbidden}")
	_, _, err = f.root.Projects.EditProject(project.ID, &gitlab.EditProjectOptions{Visibility: gitlab.Visibility("secret")})
	expectError("EditProject with a wrong visibility", err, 400, "{message: {visibility: [does not have a valid value]}}")
	// Renamed, the project is found under its new path only.
	renamed, _, err := f.root.Projects.EditProject(project.ID, &gitlab.EditProjectOptions{Name: gitlab.String("Go Project Renamed"), Path: gitlab.String("go-project.renamed")})
	must("Projects.EditProject renaming", err)
	check("EditProject renaming: PathWithNamespace", renamed.PathWithNamespace, "root/go-project.renamed")
	check("EditProject renaming: NameWithNamespace", renamed.NameWithNamespace, "Administrator / Go Project Renamed")
	// go-gitlab escapes the dot as well as the slash: projects/root%2Fgo-project%2Erenamed.
	got, _, err = f.root.Projects.GetProject("root/go-project.renamed", nil)
	must("Projects.GetProject by the new full path", err)
	check("GetProject by the new full path: ID", got.ID, project.ID)
	_, _, err = f.root.Projects.GetProject("root/go-project", nil)
	expectError("GetProject by the old full path", err, 404, "{message: 404 Project Not Found}")

	starred, resp, err := f.root.Projects.StarProject(project.ID)
	must("Projects.StarProject", err)
	checkStatus("StarProject", resp, 201)
	check("StarProject StarCount", starred.StarCount, 1)
	// A second star is 304 (Not Modified) without a body, as the original answers: go-gitlab, decoding nothing, reports EOF.
	_, resp, err = f.root.Projects.StarProject(project.ID)
	checkStatus("StarProject twice", resp, 304)
	checkTrue("StarProject twice: go-gitlab reads no body", errors.Is(err, io.EOF), err)
	listed, _, err := f.root.Projects.ListProjects(&gitlab.ListProjectsOptions{Starred: gitlab.Bool(true)})
	must("Projects.ListProjects Starred", err)
	check("ListProjects Starred", projectIDs(listed), []int{project.ID})
	starred, _, err = asUser.Projects.StarProject(project.ID)
	must("Projects.StarProject by another user", err)
	check("StarProject by another user: StarCount", starred.StarCount, 2)
	unstarred, resp, err := f.root.Projects.UnstarProject(project.ID)
	must("Projects.UnstarProject", err)
	checkStatus("UnstarProject", resp, 201)
	check("UnstarProject StarCount", unstarred.StarCount, 1)
	_, resp, err = f.root.Projects.UnstarProject(project.ID)
	checkStatus("UnstarProject twice", resp, 304)
	checkTrue("UnstarProject twice: go-gitlab reads no body", errors.Is(err, io.EOF), err)

	var made []*gitlab.Project
	for _, visibility := range []gitlab.VisibilityValue{gitlab.PublicVisibility, gitlab.InternalVisibility, gitlab.PrivateVisibility} {
		p, _, err := f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{
			Name: gitlab.String("go-list-" + string(visibility)), Visibility: gitlab.Visibility(visibility), Description: gitlab.String("A " + string(visibility) + " project"),
		})
		must("Projects.CreateProject", err)
		made = append(made, p)
	}
	// The library's own pagination: follow Response.NextPage until it is 0.
	opt := &gitlab.ListProjectsOptions{ListOptions: gitlab.ListOptions{PerPage: 2, Page: 1}, Search: gitlab.String("go-list-")}
	var all []*gitlab.Project
	pages := 0
	for {
		page, resp, err := f.root.Projects.ListProjects(opt)
		must("Projects.ListProjects", err)
		pages++
		check(fmt.Sprintf("ListProjects page %d: TotalItems", pages), resp.TotalItems, 3)
		check(fmt.Sprintf("ListProjects page %d: TotalPages", pages), resp.TotalPages, 2)
		all = append(all, page...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	check("ListProjects pages", pages, 2)
	check("ListProjects paths across the pages", projectPaths(all), []string{"go-list-internal", "go-list-private", "go-list-public"})
	ordered, _, err := f.root.Projects.ListProjects(&gitlab.ListProjectsOptions{Search: gitlab.String("go-list-"), OrderBy: gitlab.String("id"), Sort: gitlab.String("desc")})
	must("Projects.ListProjects ordered", err)
	check("ListProjects OrderBy id, Sort desc", projectIDs(ordered), []int{made[2].ID, made[1].ID, made[0].ID})
	internal, _, err := f.root.Projects.ListProjects(&gitlab.ListProjectsOptions{Search: gitlab.String("go-list-"), Visibility: gitlab.Visibility(gitlab.InternalVisibility)})
	must("Projects.ListProjects Visibility", err)
	check("ListProjects Visibility internal", projectPaths(internal), []string{"go-list-internal"})
	simple, _, err := f.root.Projects.ListProjects(&gitlab.ListProjectsOptions{Search: gitlab.String("go-list-public"), Simple: gitlab.Bool(true)})
	must("Projects.ListProjects Simple", err)
	checkTrue("ListProjects Simple", len(simple) == 1 && simple[0].PathWithNamespace == "root/go-list-public" && simple[0].Permissions == nil && simple[0].Namespace == nil, simple)
	owned, _, err := f.root.Projects.ListProjects(&gitlab.ListProjectsOptions{Search: gitlab.String("go-list-"), Owned: gitlab.Bool(true)})
	must("Projects.ListProjects Owned", err)
	check("ListProjects Owned", len(owned), 3)
	member, _, err := f.root.Projects.ListProjects(&gitlab.ListProjectsOptions{Search: gitlab.String("go-list-"), Membership: gitlab.Bool(true)})
	must("Projects.ListProjects Membership", err)
	check("ListProjects Membership", len(member), 3)
	visible, _, err := asUser.Projects.ListProjects(&gitlab.ListProjectsOptions{Search: gitlab.String("go-list-")})
	must("Projects.ListProjects by a non-member", err)
	check("ListProjects by a non-member", projectPaths(visible), []string{"go-list-internal", "go-list-public"})
	// Without a token go-gitlab sends an empty PRIVATE-TOKEN header, which counts as none.
	anonymous, _, err := f.client("").Projects.ListProjects(&gitlab.ListProjectsOptions{Search: gitlab.String("go-list-")})
	must("Projects.ListProjects without a token", err)
	check("ListProjects without a token", projectPaths(anonymous), []string{"go-list-public"})
	users, _, err := f.root.Projects.ListProjectsUsers(made[0].ID, &gitlab.ListProjectUserOptions{})
	must("Projects.ListProjectsUsers", err)
	checkTrue("ListProjectsUsers", len(users) == 1 && users[0].Username == "root", users)

	// An administrator creates a project in a user's namespace, as the user.
	theirs, resp, err := f.root.Projects.CreateProjectForUser(f.user.ID, &gitlab.CreateProjectForUserOptions{Name: gitlab.String("Go For User"), Visibility: gitlab.Visibility(gitlab.PrivateVisibility)})
	must("Projects.CreateProjectForUser", err)
	checkStatus("CreateProjectForUser", resp, 201)
	check("CreateProjectForUser Namespace", [2]string{theirs.Namespace.Kind, theirs.Namespace.Path}, [2]string{"user", f.user.Username})
	checkTrue("CreateProjectForUser Owner", theirs.Owner != nil && theirs.Owner.ID == f.user.ID, theirs.Owner)
	for _, uid := range []interface{}{f.user.ID, f.user.Username} {
		userProjects, _, err := f.root.Projects.ListUserProjects(uid, &gitlab.ListProjectsOptions{})
		must("Projects.ListUserProjects", err)
		check(fmt.Sprintf("ListUserProjects(%v)", uid), projectIDs(userProjects), []int{theirs.ID})
	}
	mine, _, err := asUser.Projects.ListProjects(&gitlab.ListProjectsOptions{Owned: gitlab.Bool(true)})
	must("Projects.ListProjects Owned by the user", err)
	check("ListProjects Owned by the user", projectIDs(mine), []int{theirs.ID})

	for _, doomed := range append(made, theirs) {
		resp, err = f.root.Projects.DeleteProject(doomed.ID)
		must("Projects.DeleteProject", err)
		checkStatus("DeleteProject", resp, 202)
	}
	_, err = f.root.Projects.DeleteProject(project.ID)
	must("Projects.DeleteProject", err)
	waitGone("GetProject of a deleted project", func() error { _, _, err := f.root.Projects.GetProject(project.ID, nil); return err })
	left, _, err := f.root.Projects.ListProjects(&gitlab.ListProjectsOptions{Search: gitlab.String("go-list-")})
	must("Projects.ListProjects after delete", err)
	check("ListProjects after delete", len(left), 0)
	return "create, get by id and path, statistics, edit, rename, star/unstar, list 2 pages with filters, for a user, delete"
}

func groupPaths(groups []*gitlab.Group) []string {
	paths := []string{}
	for _, group := range groups {
		paths = append(paths, group.FullPath)
	}
	return paths
}

func (f *flows) groups() string {
	asUser := f.asUser(f.user, "go-groups")
	group, resp, err := f.root.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name: gitlab.String("Go Team"), Path: gitlab.String("go-team"), Description: gitlab.String("Made by go-gitlab"),
		Visibility: gitlab.Visibility(gitlab.InternalVisibility), RequestAccessEnabled: gitlab.Bool(true),
	})
	must("Groups.CreateGroup", err)
	checkStatus("CreateGroup", resp, 201)
	check("CreateGroup Name", group.Name, "Go Team")
	check("CreateGroup Path", group.Path, "go-team")
	check("CreateGroup Description", group.Description, "Made by go-gitlab")
	check("CreateGroup Visibility", group.Visibility, gitlab.InternalVisibility)
	check("CreateGroup RequestAccessEnabled", group.RequestAccessEnabled, true)
	check("CreateGroup LFSEnabled", group.LFSEnabled, true)
	check("CreateGroup FullPath", group.FullPath, "go-team")
	check("CreateGroup FullName", group.FullName, "Go Team")
	check("CreateGroup ParentID (null)", group.ParentID, 0)
	check("CreateGroup WebURL", group.WebURL, f.url+"/groups/go-team")
	check("CreateGroup Projects", len(group.Projects), 0)

	core, _, err := f.root.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.String("Go Team Core"), Path: gitlab.String("go-team-core"), ParentID: gitlab.Int(group.ID)})
	must("Groups.CreateGroup (subgroup)", err)
	check("CreateGroup (subgroup) FullPath", core.FullPath, "go-team/go-team-core")
	check("CreateGroup (subgroup) FullName", core.FullName, "Go Team / Go Team Core")
	check("CreateGroup (subgroup) ParentID", core.ParentID, group.ID)
	check("CreateGroup (subgroup) Visibility (the default)", core.Visibility, gitlab.PrivateVisibility)
	check("CreateGroup (subgroup) WebURL", core.WebURL, f.url+"/groups/go-team/go-team-core")
	site, _, err := f.root.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.String("Go Team Site"), Path: gitlab.String("go-team-site"), Visibility: gitlab.Visibility(gitlab.PublicVisibility)})
	must("Groups.CreateGroup (public)", err)

	_, _, err = f.root.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.String("Go Team"), Path: gitlab.String("go-team")})
	expectError("CreateGroup with a taken path", err, 400, "{message: {name: [has already been taken]}, {path: [has already been taken]}}")
	_, _, err = f.root.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.String("go-bad"), Path: gitlab.String("go-bad"), Visibility: gitlab.Visibility("secret")})
	expectError("CreateGroup with a wrong visibility", err, 400, "{message: {visibility: [does not have a valid value]}}")
	_, _, err = asUser.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.String("Go Intruder"), Path: gitlab.String("go-intruder"), ParentID: gitlab.Int(group.ID)})
	expectError("CreateGroup of a subgroup by a non-member", err, 403, "{message: 403 Forbidden}")

	opt := &gitlab.ListGroupsOptions{ListOptions: gitlab.ListOptions{PerPage: 2, Page: 1}, Search: gitlab.String("go-team")}
	var all []*gitlab.Group
	pages := 0
	for {
		page, resp, err := f.root.Groups.ListGroups(opt)
		must("Groups.ListGroups", err)
		pages++
		check(fmt.Sprintf("ListGroups page %d: TotalItems", pages), resp.TotalItems, 3)
		check(fmt.Sprintf("ListGroups page %d: TotalPages", pages), resp.TotalPages, 2)
		all = append(all, page...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	check("ListGroups pages", pages, 2)
	paths := groupPaths(all)
	sort.Strings(paths)
	check("ListGroups full paths across the pages", paths, []string{"go-team", "go-team-site", "go-team/go-team-core"})
	ordered, _, err := f.root.Groups.ListGroups(&gitlab.ListGroupsOptions{Search: gitlab.String("go-team"), OrderBy: gitlab.String("path"), Sort: gitlab.String("desc")})
	must("Groups.ListGroups ordered", err)
	check("ListGroups OrderBy path, Sort desc", groupPaths(ordered), []string{"go-team-site", "go-team/go-team-core", "go-team"})
	// go-gitlab sends skip_groups=1&skip_groups=2 (without brackets).
	skipped, _, err := f.root.Groups.ListGroups(&gitlab.ListGroupsOptions{Search: gitlab.String("go-team"), SkipGroups: &[]int{site.ID, core.ID}})
	must("Groups.ListGroups SkipGroups", err)
	check("ListGroups SkipGroups", groupPaths(skipped), []string{"go-team"})
	owned, _, err := f.root.Groups.ListGroups(&gitlab.ListGroupsOptions{Search: gitlab.String("go-team"), Owned: gitlab.Bool(true)})
	must("Groups.ListGroups Owned", err)
	check("ListGroups Owned", len(owned), 3)
	withStatistics, _, err := f.root.Groups.ListGroups(&gitlab.ListGroupsOptions{Search: gitlab.String("go-team-site"), Statistics: gitlab.Bool(true)})
	must("Groups.ListGroups Statistics", err)
	checkTrue("ListGroups Statistics", len(withStatistics) == 1 && withStatistics[0].Statistics != nil && withStatistics[0].Statistics.StorageSize == 0, withStatistics)
	found, _, err := f.root.Groups.SearchGroup("go-team")
	must("Groups.SearchGroup", err)
	check("SearchGroup", len(found), 3)
	theirs, _, err := asUser.Groups.ListGroups(&gitlab.ListGroupsOptions{Search: gitlab.String("go-team")})
	must("Groups.ListGroups by a non-member", err)
	check("ListGroups by a non-member", len(theirs), 0)
	available, _, err := asUser.Groups.ListGroups(&gitlab.ListGroupsOptions{Search: gitlab.String("go-team"), AllAvailable: gitlab.Bool(true), OrderBy: gitlab.String("path")})
	must("Groups.ListGroups AllAvailable by a non-member", err)
	check("ListGroups AllAvailable by a non-member", groupPaths(available), []string{"go-team", "go-team-site"})
	anonymous, _, err := f.client("").Groups.ListGroups(&gitlab.ListGroupsOptions{Search: gitlab.String("go-team")})
	must("Groups.ListGroups without a token", err)
	check("ListGroups without a token", groupPaths(anonymous), []string{"go-team-site"})

	// ListSubGroups (GET /groups/:id/subgroups) came to the original after this API version: not here.
	got, _, err := f.root.Groups.GetGroup("go-team/go-team-core", nil)
	must("Groups.GetGroup by full path", err)
	check("GetGroup by full path: ID", got.ID, core.ID)
	_, _, err = asUser.Groups.GetGroup(core.ID, nil)
	expectError("GetGroup of a private subgroup by a non-member", err, 404, "{message: 404 Group Not Found}")
	updated, resp, err := f.root.Groups.UpdateGroup(group.ID, &gitlab.UpdateGroupOptions{Description: gitlab.String("Changed by go-gitlab"), RequestAccessEnabled: gitlab.Bool(false)})
	must("Groups.UpdateGroup", err)
	checkStatus("UpdateGroup", resp, 200)
	check("UpdateGroup Description", updated.Description, "Changed by go-gitlab")
	check("UpdateGroup RequestAccessEnabled", updated.RequestAccessEnabled, false)
	_, _, err = asUser.Groups.UpdateGroup(group.ID, &gitlab.UpdateGroupOptions{Description: gitlab.String("Not mine")})
	expectError("UpdateGroup by a non-member", err, 403, "{message: 403 Forbidden}")

	app, _, err := f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("Go Team App"), NamespaceID: gitlab.Int(group.ID), Visibility: gitlab.Visibility(gitlab.InternalVisibility)})
	must("Projects.CreateProject in a group", err)
	check("CreateProject in a group: PathWithNamespace", app.PathWithNamespace, "go-team/go-team-app")
	check("CreateProject in a group: Namespace", [3]interface{}{app.Namespace.ID, app.Namespace.Kind, app.Namespace.FullPath}, [3]interface{}{group.ID, "group", "go-team"})
	check("CreateProject in a group: Owner", app.Owner, (*gitlab.User)(nil))
	inGroup, _, err := f.root.Groups.ListGroupProjects(group.ID, &gitlab.ListGroupProjectsOptions{})
	must("Groups.ListGroupProjects", err)
	check("ListGroupProjects", projectIDs(inGroup), []int{app.ID})
	got, _, err = f.root.Groups.GetGroup(group.ID, nil)
	must("Groups.GetGroup", err)
	check("GetGroup Projects", projectIDs(got.Projects), []int{app.ID})

	// TransferProject moves a project to a namespace given by ID (PUT /projects/:id/transfer); TransferGroup moves one
	// into the group (POST /groups/:id/projects/:project_id, administrators only).
	mover, _, err := f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("Go Mover")})
	must("Projects.CreateProject", err)
	moved, resp, err := f.root.Projects.TransferProject(mover.ID, &gitlab.TransferProjectOptions{Namespace: group.ID})
	must("Projects.TransferProject", err)
	checkStatus("TransferProject", resp, 200)
	check("TransferProject PathWithNamespace", moved.PathWithNamespace, "go-team/go-mover")
	_, _, err = f.root.Projects.TransferProject(mover.ID, &gitlab.TransferProjectOptions{Namespace: "go-nowhere"})
	expectError("TransferProject to no namespace", err, 404, "{message: 404 Namespace Not Found}")
	_, _, err = asUser.Groups.TransferGroup(group.ID, mover.ID)
	expectError("TransferGroup by a non-administrator", err, 403, "")
	into, resp, err := f.root.Groups.TransferGroup(core.ID, mover.ID)
	must("Groups.TransferGroup", err)
	checkStatus("TransferGroup", resp, 201)
	check("TransferGroup answers the group: ID", into.ID, core.ID)
	check("TransferGroup answers the group: Projects", projectIDs(into.Projects), []int{mover.ID})
	mover, _, err = f.root.Projects.GetProject(mover.ID, nil)
	must("Projects.GetProject after TransferGroup", err)
	check("TransferGroup PathWithNamespace", mover.PathWithNamespace, "go-team/go-team-core/go-mover")
	check("TransferGroup NameWithNamespace", mover.NameWithNamespace, "Go Team / Go Team Core / Go Mover")
	withSubgroups, _, err := f.root.Groups.ListGroupProjects(group.ID, &gitlab.ListGroupProjectsOptions{IncludeSubGroups: gitlab.Bool(true)})
	must("Groups.ListGroupProjects IncludeSubGroups", err)
	check("ListGroupProjects IncludeSubGroups", projectPaths(withSubgroups), []string{"go-mover", "go-team-app"})

	// Sharing a project with a group: the group sees it among its shared projects.
	expires := time.Now().AddDate(0, 0, 90).Format("2006-01-02")
	resp, err = f.root.Projects.ShareProjectWithGroup(app.ID, &gitlab.ShareWithGroupOptions{
		GroupID: gitlab.Int(site.ID), GroupAccess: gitlab.AccessLevel(gitlab.DeveloperPermissions), ExpiresAt: gitlab.String(expires),
	})
	must("Projects.ShareProjectWithGroup", err)
	checkStatus("ShareProjectWithGroup", resp, 201)
	shared, _, err := f.root.Projects.GetProject(app.ID, nil)
	must("Projects.GetProject after ShareProjectWithGroup", err)
	checkTrue("GetProject SharedWithGroups", len(shared.SharedWithGroups) == 1 && shared.SharedWithGroups[0].GroupID == site.ID &&
		shared.SharedWithGroups[0].GroupName == "Go Team Site" && shared.SharedWithGroups[0].GroupAccessLevel == 30, shared.SharedWithGroups)
	got, _, err = f.root.Groups.GetGroup(site.ID, nil)
	must("Groups.GetGroup of the group shared with", err)
	check("GetGroup SharedProjects", projectIDs(got.SharedProjects), []int{app.ID})
	inSite, _, err := f.root.Groups.ListGroupProjects(site.ID, &gitlab.ListGroupProjectsOptions{})
	must("Groups.ListGroupProjects with shared projects", err)
	check("ListGroupProjects with shared projects", projectIDs(inSite), []int{app.ID})
	inSite, _, err = f.root.Groups.ListGroupProjects(site.ID, &gitlab.ListGroupProjectsOptions{WithShared: gitlab.Bool(false)})
	must("Groups.ListGroupProjects WithShared false", err)
	check("ListGroupProjects WithShared false", len(inSite), 0)
	_, err = f.root.Projects.ShareProjectWithGroup(app.ID, &gitlab.ShareWithGroupOptions{GroupID: gitlab.Int(site.ID), GroupAccess: gitlab.AccessLevel(gitlab.ReporterPermissions)})
	expectError("ShareProjectWithGroup twice", err, 409, "{message: Group already shared with this group}")
	_, err = f.root.Projects.ShareProjectWithGroup(app.ID, &gitlab.ShareWithGroupOptions{GroupID: gitlab.Int(core.ID), GroupAccess: gitlab.AccessLevel(gitlab.OwnerPermissions)})
	expectError("ShareProjectWithGroup with a wrong level", err, 400, "")
	resp, err = f.root.Projects.DeleteSharedProjectFromGroup(app.ID, site.ID)
	must("Projects.DeleteSharedProjectFromGroup", err)
	checkStatus("DeleteSharedProjectFromGroup", resp, 204)
	shared, _, err = f.root.Projects.GetProject(app.ID, nil)
	must("Projects.GetProject after DeleteSharedProjectFromGroup", err)
	check("GetProject SharedWithGroups after DeleteSharedProjectFromGroup", len(shared.SharedWithGroups), 0)
	_, err = f.root.Projects.DeleteSharedProjectFromGroup(app.ID, site.ID)
	expectError("DeleteSharedProjectFromGroup twice", err, 404, "")

	// Deleting a group deletes the projects in it.
	page, _, err := f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("Go Site Page"), NamespaceID: gitlab.Int(site.ID)})
	must("Projects.CreateProject in the group to delete", err)
	resp, err = f.root.Groups.DeleteGroup(site.ID)
	must("Groups.DeleteGroup", err)
	checkStatus("DeleteGroup", resp, 202)
	waitGone("GetGroup of a deleted group", func() error { _, _, err := f.root.Groups.GetGroup(site.ID, nil); return err })
	waitGone("GetProject of a project of a deleted group", func() error { _, _, err := f.root.Projects.GetProject(page.ID, nil); return err })
	f.group, f.subgroup, f.groupProject, f.privateProject = group, core, app, mover
	return "create with a subgroup, list 2 pages with filters, search, get by path, update, projects, transfer both ways, share, delete"
}

type memberLevel struct {
	Username string
	Level    gitlab.AccessLevelValue
}

func projectMemberLevels(members []*gitlab.ProjectMember) []memberLevel {
	levels := []memberLevel{}
	for _, m := range members {
		levels = append(levels, memberLevel{m.Username, m.AccessLevel})
	}
	sort.Slice(levels, func(i, j int) bool { return levels[i].Username < levels[j].Username })
	return levels
}

func groupMemberLevels(members []*gitlab.GroupMember) []memberLevel {
	levels := []memberLevel{}
	for _, m := range members {
		levels = append(levels, memberLevel{m.Username, m.AccessLevel})
	}
	sort.Slice(levels, func(i, j int) bool { return levels[i].Username < levels[j].Username })
	return levels
}

func (f *flows) members() string {
	group, core, app, mover := f.group, f.subgroup, f.groupProject, f.privateProject
	member, _, err := f.newUser("go-member")
	must("Users.CreateUser", err)
	asMember := f.asUser(member, "go-member")
	day := func(days int) string { return time.Now().AddDate(0, 0, days).Format("2006-01-02") }

	// A project's members.
	added, resp, err := f.root.ProjectMembers.AddProjectMember(app.ID, &gitlab.AddProjectMemberOptions{
		UserID: member.ID, AccessLevel: gitlab.AccessLevel(gitlab.DeveloperPermissions), ExpiresAt: gitlab.String(day(60)),
	})
	must("ProjectMembers.AddProjectMember", err)
	checkStatus("AddProjectMember", resp, 201)
	check("AddProjectMember Username", added.Username, "go-member")
	check("AddProjectMember AccessLevel", added.AccessLevel, gitlab.DeveloperPermissions)
	checkTrue("AddProjectMember ExpiresAt", added.ExpiresAt != nil && added.ExpiresAt.String() == day(60), added.ExpiresAt)
	check("AddProjectMember State", added.State, "active")
	_, _, err = f.root.ProjectMembers.AddProjectMember(app.ID, &gitlab.AddProjectMemberOptions{UserID: member.ID, AccessLevel: gitlab.AccessLevel(gitlab.ReporterPermissions)})
	expectError("AddProjectMember of a member", err, 409, "{message: Member already exists}")
	_, _, err = f.root.ProjectMembers.AddProjectMember(app.ID, &gitlab.AddProjectMemberOptions{UserID: f.user.ID, AccessLevel: gitlab.AccessLevel(gitlab.OwnerPermissions)})
	expectError("AddProjectMember with the owner level", err, 400, "{message: {access_level: [is not included in the list]}}")
	_, _, err = f.root.ProjectMembers.AddProjectMember(app.ID, &gitlab.AddProjectMemberOptions{UserID: f.user.ID, AccessLevel: gitlab.AccessLevel(gitlab.ReporterPermissions), ExpiresAt: gitlab.String("2001-01-01")})
	expectError("AddProjectMember with a past expiry", err, 400, "{message: {expires_at: [cannot be a date in the past]}}")
	members, _, err := f.root.ProjectMembers.ListProjectMembers(app.ID, &gitlab.ListProjectMembersOptions{})
	must("ProjectMembers.ListProjectMembers", err)
	check("ListProjectMembers", projectMemberLevels(members), []memberLevel{{"go-member", 30}})
	members, _, err = f.root.ProjectMembers.ListProjectMembers(app.ID, &gitlab.ListProjectMembersOptions{Query: gitlab.String("go-mem")})
	must("ProjectMembers.ListProjectMembers Query", err)
	check("ListProjectMembers Query", projectMemberLevels(members), []memberLevel{{"go-member", 30}})
	shown, _, err := f.root.ProjectMembers.GetProjectMember(app.ID, member.ID)
	must("ProjectMembers.GetProjectMember", err)
	checkTrue("GetProjectMember ExpiresAt", shown.ExpiresAt != nil && shown.ExpiresAt.String() == day(60), shown.ExpiresAt)
	// The group's owner is a member of its projects through the group.
	members, _, err = f.root.ProjectMembers.ListAllProjectMembers(app.ID, &gitlab.ListProjectMembersOptions{})
	must("ProjectMembers.ListAllProjectMembers", err)
	check("ListAllProjectMembers", projectMemberLevels(members), []memberLevel{{"go-member", 30}, {"root", 50}})
	shown, _, err = f.root.ProjectMembers.GetInheritedProjectMember(app.ID, 1)
	must("ProjectMembers.GetInheritedProjectMember", err)
	check("GetInheritedProjectMember of the group's owner", shown.AccessLevel, gitlab.OwnerPermissions)
	_, _, err = f.root.ProjectMembers.GetProjectMember(app.ID, 1)
	expectError("GetProjectMember of a member through the group only", err, 404, "{message: 404 Member Not Found}")

	edited, resp, err := f.root.ProjectMembers.EditProjectMember(app.ID, member.ID, &gitlab.EditProjectMemberOptions{AccessLevel: gitlab.AccessLevel(gitlab.MaintainerPermissions), ExpiresAt: gitlab.String(day(10))})
	must("ProjectMembers.EditProjectMember", err)
	checkStatus("EditProjectMember", resp, 200)
	check("EditProjectMember AccessLevel", edited.AccessLevel, gitlab.MaintainerPermissions)
	checkTrue("EditProjectMember ExpiresAt", edited.ExpiresAt != nil && edited.ExpiresAt.String() == day(10), edited.ExpiresAt)
	// go-gitlab always sends expires_at, null when not set: the membership then has no last day, as with the original.
	edited, _, err = f.root.ProjectMembers.EditProjectMember(app.ID, member.ID, &gitlab.EditProjectMemberOptions{AccessLevel: gitlab.AccessLevel(gitlab.ReporterPermissions)})
	must("ProjectMembers.EditProjectMember without ExpiresAt", err)
	check("EditProjectMember without ExpiresAt: AccessLevel", edited.AccessLevel, gitlab.ReporterPermissions)
	check("EditProjectMember without ExpiresAt: ExpiresAt", edited.ExpiresAt, (*gitlab.ISOTime)(nil))
	// The member sees its own level; a reporter may not add members.
	seen, _, err := asMember.Projects.GetProject(app.ID, nil)
	must("Projects.GetProject as a member", err)
	checkTrue("GetProject as a member: Permissions.ProjectAccess", seen.Permissions.ProjectAccess != nil && seen.Permissions.ProjectAccess.AccessLevel == gitlab.ReporterPermissions, seen.Permissions)
	_, _, err = asMember.ProjectMembers.AddProjectMember(app.ID, &gitlab.AddProjectMemberOptions{UserID: f.user.ID, AccessLevel: gitlab.AccessLevel(gitlab.GuestPermissions)})
	expectError("AddProjectMember by a reporter", err, 403, "{message: 403 Forbidden}")
	users, _, err := f.root.Projects.ListProjectsUsers(app.ID, &gitlab.ListProjectUserOptions{})
	must("Projects.ListProjectsUsers", err)
	var usernames []string
	for _, u := range users {
		usernames = append(usernames, u.Username)
	}
	sort.Strings(usernames)
	check("ListProjectsUsers", usernames, []string{"go-member", "root"})
	resp, err = f.root.ProjectMembers.DeleteProjectMember(app.ID, member.ID)
	must("ProjectMembers.DeleteProjectMember", err)
	checkStatus("DeleteProjectMember", resp, 204)
	_, _, err = f.root.ProjectMembers.GetProjectMember(app.ID, member.ID)
	expectError("GetProjectMember of a removed member", err, 404, "")

	// A group's members, and what they inherit in its subgroups and projects.
	_, _, err = asMember.Projects.GetProject(mover.ID, nil)
	expectError("GetProject of a private project in a private subgroup by a non-member", err, 404, "")
	joined, resp, err := f.root.GroupMembers.AddGroupMember(group.ID, &gitlab.AddGroupMemberOptions{UserID: gitlab.Int(member.ID), AccessLevel: gitlab.AccessLevel(gitlab.ReporterPermissions)})
	must("GroupMembers.AddGroupMember", err)
	checkStatus("AddGroupMember", resp, 201)
	check("AddGroupMember AccessLevel", joined.AccessLevel, gitlab.ReporterPermissions)
	check("AddGroupMember ExpiresAt", joined.ExpiresAt, (*gitlab.ISOTime)(nil))
	_, _, err = f.root.GroupMembers.AddGroupMember(group.ID, &gitlab.AddGroupMemberOptions{UserID: gitlab.Int(member.ID), AccessLevel: gitlab.AccessLevel(gitlab.ReporterPermissions)})
	expectError("AddGroupMember of a member", err, 409, "{message: Member already exists}")
	groupMembers, _, err := f.root.Groups.ListGroupMembers(group.ID, &gitlab.ListGroupMembersOptions{})
	must("Groups.ListGroupMembers", err)
	check("ListGroupMembers", groupMemberLevels(groupMembers), []memberLevel{{"go-member", 20}, {"root", 50}})
	opt := &gitlab.ListGroupMembersOptions{ListOptions: gitlab.ListOptions{PerPage: 1, Page: 1}}
	var paged []*gitlab.GroupMember
	for {
		page, resp, err := f.root.Groups.ListGroupMembers(group.ID, opt)
		must("Groups.ListGroupMembers", err)
		check("ListGroupMembers TotalItems", resp.TotalItems, 2)
		paged = append(paged, page...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	check("ListGroupMembers across 2 pages", groupMemberLevels(paged), []memberLevel{{"go-member", 20}, {"root", 50}})
	groupMembers, _, err = f.root.Groups.ListGroupMembers(group.ID, &gitlab.ListGroupMembersOptions{UserIDs: &[]int{member.ID}})
	must("Groups.ListGroupMembers UserIDs", err)
	check("ListGroupMembers UserIDs", groupMemberLevels(groupMembers), []memberLevel{{"go-member", 20}})
	groupMembers, _, err = f.root.Groups.ListGroupMembers(core.ID, &gitlab.ListGroupMembersOptions{})
	must("Groups.ListGroupMembers of the subgroup", err)
	check("ListGroupMembers of the subgroup", groupMemberLevels(groupMembers), []memberLevel{{"root", 50}})
	groupMembers, _, err = f.root.Groups.ListAllGroupMembers(core.ID, &gitlab.ListGroupMembersOptions{})
	must("Groups.ListAllGroupMembers of the subgroup", err)
	check("ListAllGroupMembers of the subgroup", groupMemberLevels(groupMembers), []memberLevel{{"go-member", 20}, {"root", 50}})
	_, _, err = f.root.GroupMembers.GetGroupMember(core.ID, member.ID)
	expectError("GetGroupMember of a member of the group above only", err, 404, "{message: 404 Member Not Found}")
	seen, _, err = asMember.Projects.GetProject(mover.ID, nil)
	must("Projects.GetProject of a private project in a subgroup, as a member of the group", err)
	check("GetProject as a member of the group: PathWithNamespace", seen.PathWithNamespace, "go-team/go-team-core/go-mover")
	members, _, err = f.root.ProjectMembers.ListAllProjectMembers(mover.ID, &gitlab.ListProjectMembersOptions{UserIDs: &[]int{member.ID}})
	must("ProjectMembers.ListAllProjectMembers UserIDs", err)
	check("ListAllProjectMembers through two groups", projectMemberLevels(members), []memberLevel{{"go-member", 20}})
	_, _, err = f.root.ProjectMembers.AddProjectMember(mover.ID, &gitlab.AddProjectMemberOptions{UserID: member.ID, AccessLevel: gitlab.AccessLevel(gitlab.GuestPermissions)})
	expectError("AddProjectMember below the inherited level", err, 400,
		"{message: {access_level: [should be greater than or equal to Reporter inherited membership from group Go Team]}}")
	_, _, err = asMember.GroupMembers.AddGroupMember(group.ID, &gitlab.AddGroupMemberOptions{UserID: gitlab.Int(f.user.ID), AccessLevel: gitlab.AccessLevel(gitlab.GuestPermissions)})
	expectError("AddGroupMember by a reporter", err, 403, "{message: 403 Forbidden}")

	promoted, _, err := f.root.GroupMembers.EditGroupMember(group.ID, member.ID, &gitlab.EditGroupMemberOptions{AccessLevel: gitlab.AccessLevel(gitlab.OwnerPermissions)})
	must("GroupMembers.EditGroupMember", err)
	check("EditGroupMember AccessLevel", promoted.AccessLevel, gitlab.OwnerPermissions)
	promoted, _, err = f.root.GroupMembers.EditGroupMember(group.ID, member.ID, &gitlab.EditGroupMemberOptions{AccessLevel: gitlab.AccessLevel(gitlab.DeveloperPermissions), ExpiresAt: gitlab.String(day(20))})
	must("GroupMembers.EditGroupMember with ExpiresAt", err)
	shownInGroup, _, err := f.root.GroupMembers.GetGroupMember(group.ID, member.ID)
	must("GroupMembers.GetGroupMember", err)
	checkTrue("GetGroupMember after EditGroupMember", shownInGroup.AccessLevel == gitlab.DeveloperPermissions && shownInGroup.ExpiresAt != nil && shownInGroup.ExpiresAt.String() == day(20), shownInGroup)
	// A member may leave: it removes itself with its own token.
	resp, err = asMember.GroupMembers.RemoveGroupMember(group.ID, member.ID, &gitlab.RemoveGroupMemberOptions{})
	must("GroupMembers.RemoveGroupMember (leaving)", err)
	checkStatus("RemoveGroupMember (leaving)", resp, 204)
	groupMembers, _, err = f.root.Groups.ListGroupMembers(group.ID, &gitlab.ListGroupMembersOptions{})
	must("Groups.ListGroupMembers after the member left", err)
	check("ListGroupMembers after the member left", groupMemberLevels(groupMembers), []memberLevel{{"root", 50}})

	// A group keeps an owner.
	solo, _, err := f.root.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.String("Go Solo"), Path: gitlab.String("go-solo")})
	must("Groups.CreateGroup", err)
	_, err = f.root.GroupMembers.RemoveGroupMember(solo.ID, 1, nil)
	expectError("RemoveGroupMember of the last owner", err, 403, "{message: 403 Forbidden - A group must have at least one owner}")
	_, _, err = f.root.GroupMembers.EditGroupMember(solo.ID, 1, &gitlab.EditGroupMemberOptions{AccessLevel: gitlab.AccessLevel(gitlab.MaintainerPermissions)})
	expectError("EditGroupMember of the last owner", err, 403, "{message: 403 Forbidden - A group must have at least one owner}")
	_, _, err = f.root.GroupMembers.AddGroupMember(solo.ID, &gitlab.AddGroupMemberOptions{UserID: gitlab.Int(member.ID), AccessLevel: gitlab.AccessLevel(gitlab.OwnerPermissions)})
	must("GroupMembers.AddGroupMember (owner)", err)
	stepped, _, err := f.root.GroupMembers.EditGroupMember(solo.ID, 1, &gitlab.EditGroupMemberOptions{AccessLevel: gitlab.AccessLevel(gitlab.MaintainerPermissions)})
	must("GroupMembers.EditGroupMember of an owner beside another", err)
	check("EditGroupMember of an owner beside another", stepped.AccessLevel, gitlab.MaintainerPermissions)
	_, err = f.root.Groups.DeleteGroup(solo.ID)
	must("Groups.DeleteGroup", err)
	return "project and group: add, 409, 400, list 2 pages, get, edit, /all, inherited levels, leave, last owner"
}

func namespacePaths(namespaces []*gitlab.Namespace) []string {
	paths := []string{}
	for _, namespace := range namespaces {
		paths = append(paths, namespace.FullPath)
	}
	sort.Strings(paths)
	return paths
}

func (f *flows) namespaces() string {
	group, core := f.group, f.subgroup
	own, _, err := f.root.Namespaces.GetNamespace(group.ID)
	must("Namespaces.GetNamespace", err)
	check("GetNamespace of a group", [5]interface{}{own.Kind, own.Name, own.Path, own.FullPath, own.ParentID}, [5]interface{}{"group", "Go Team", "go-team", "go-team", 0})
	// Group owners (and maintainers) see how many members the group and its subgroups have.
	check("GetNamespace MembersCountWithDescendants", own.MembersCountWithDescendants, 1)
	sub, _, err := f.root.Namespaces.GetNamespace("go-team/go-team-core")
	must("Namespaces.GetNamespace by full path", err)
	check("GetNamespace by full path", [4]interface{}{sub.ID, sub.Kind, sub.FullPath, sub.ParentID}, [4]interface{}{core.ID, "group", "go-team/go-team-core", group.ID})
	personal, _, err := f.root.Namespaces.GetNamespace(f.user.Username)
	must("Namespaces.GetNamespace of a user", err)
	check("GetNamespace of a user", [3]string{personal.Kind, personal.Path, personal.FullPath}, [3]string{"user", f.user.Username, f.user.Username})
	found, _, err := f.root.Namespaces.SearchNamespace("go-team")
	must("Namespaces.SearchNamespace", err)
	check("SearchNamespace", namespacePaths(found), []string{"go-team", "go-team/go-team-core"})

	every, _, err := f.root.Namespaces.ListNamespaces(&gitlab.ListNamespacesOptions{Search: gitlab.String("go-"), ListOptions: gitlab.ListOptions{PerPage: 100}})
	must("Namespaces.ListNamespaces", err)
	opt := &gitlab.ListNamespacesOptions{Search: gitlab.String("go-"), ListOptions: gitlab.ListOptions{PerPage: 2, Page: 1}}
	var paged []*gitlab.Namespace
	pages := 0
	for {
		page, resp, err := f.root.Namespaces.ListNamespaces(opt)
		must("Namespaces.ListNamespaces", err)
		pages++
		check("ListNamespaces TotalItems", resp.TotalItems, len(every))
		paged = append(paged, page...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	checkTrue("ListNamespaces has several pages", pages >= 3, pages)
	check("ListNamespaces full paths across the pages", namespacePaths(paged), namespacePaths(every))

	// A user sees its own namespace and its groups' only.
	asUser := f.asUser(f.user, "go-namespaces")
	mine, _, err := asUser.Namespaces.ListNamespaces(&gitlab.ListNamespacesOptions{})
	must("Namespaces.ListNamespaces as a user", err)
	check("ListNamespaces as a user", namespacePaths(mine), []string{f.user.Username})
	_, _, err = asUser.Namespaces.GetNamespace("root")
	expectError("GetNamespace of another user's namespace", err, 404, "{message: 404 Namespace Not Found}")
	_, _, err = asUser.Namespaces.GetNamespace(group.ID)
	expectError("GetNamespace of a group it is not a member of", err, 404, "{message: 404 Namespace Not Found}")
	_, _, err = f.root.GroupMembers.AddGroupMember(group.ID, &gitlab.AddGroupMemberOptions{UserID: gitlab.Int(f.user.ID), AccessLevel: gitlab.AccessLevel(gitlab.ReporterPermissions)})
	must("GroupMembers.AddGroupMember", err)
	mine, _, err = asUser.Namespaces.ListNamespaces(&gitlab.ListNamespacesOptions{})
	must("Namespaces.ListNamespaces as a group member", err)
	// The groups it is a member of itself, not their subgroups, as the original lists them.
	want := []string{f.user.Username, "go-team"}
	sort.Strings(want)
	check("ListNamespaces as a group member", namespacePaths(mine), want)
	for _, namespace := range mine {
		check("a reporter is not shown MembersCountWithDescendants", namespace.MembersCountWithDescendants, 0)
	}
	return "get by id and path, user and group kinds, search, list pages, as a user and a group member"
}

func (f *flows) settings() string {
	original, _, err := f.root.Settings.GetSettings()
	must("Settings.GetSettings", err)
	check("GetSettings DefaultBranchProtection", original.DefaultBranchProtection, 2)
	check("GetSettings RepositoryStorages", original.RepositoryStorages, []string{"default"})
	// Settings of the clients' era under their names of that era.
	check("GetSettings GravatarEnabled", original.GravatarEnabled, true)
	check("GetSettings PasswordAuthenticationEnabledForWeb", original.PasswordAuthenticationEnabledForWeb, true)

	updated, _, err := f.root.Settings.UpdateSettings(&gitlab.UpdateSettingsOptions{
		DefaultProjectsLimit:                gitlab.Int(37),
		SignupEnabled:                       gitlab.Bool(false),
		SignInText:                          gitlab.String("Signed in through go-gitlab"),
		RestrictedVisibilityLevels:          &[]gitlab.VisibilityValue{gitlab.PublicVisibility, gitlab.InternalVisibility},
		DefaultGroupVisibility:              gitlab.Visibility(gitlab.InternalVisibility),
		TerminalMaxSessionTime:              gitlab.Int(900),
		PollingIntervalMultiplier:           floatPointer(1.5),
		EnabledGitAccessProtocol:            gitlab.String("ssh"),
		DomainAllowlist:                     &[]string{"example.com"},
		DomainDenylistEnabled:               gitlab.Bool(true),
		DomainDenylist:                      &[]string{"spam.example"},
		GravatarEnabled:                     gitlab.Bool(false),
		PlantumlEnabled:                     gitlab.Bool(true),
		PlantumlURL:                         gitlab.String("https://plantuml.example.com"),
		PasswordAuthenticationEnabledForWeb: gitlab.Bool(false),
		Ed25519KeyRestriction:               gitlab.Int(256),
	})
	must("Settings.UpdateSettings", err)
	check("UpdateSettings answer: DefaultProjectsLimit", updated.DefaultProjectsLimit, 37)
	read, _, err := f.root.Settings.GetSettings()
	must("Settings.GetSettings after UpdateSettings", err)
	for _, s := range []*gitlab.Settings{updated, read} {
		check("settings DefaultProjectsLimit", s.DefaultProjectsLimit, 37)
		check("settings SignupEnabled", s.SignupEnabled, false)
		check("settings SignInText", s.SignInText, "Signed in through go-gitlab")
		check("settings RestrictedVisibilityLevels", s.RestrictedVisibilityLevels, []gitlab.VisibilityValue{gitlab.PublicVisibility, gitlab.InternalVisibility})
		check("settings DefaultGroupVisibility", s.DefaultGroupVisibility, gitlab.InternalVisibility)
		check("settings TerminalMaxSessionTime", s.TerminalMaxSessionTime, 900)
		check("settings PollingIntervalMultiplier", s.PollingIntervalMultiplier, 1.5)
		check("settings EnabledGitAccessProtocol", s.EnabledGitAccessProtocol, "ssh")
		check("settings Ed25519KeyRestriction", s.Ed25519KeyRestriction, 256)
		check("settings DomainAllowlist", s.DomainAllowlist, []string{"example.com"})
		check("settings DomainDenylistEnabled", s.DomainDenylistEnabled, true)
		check("settings DomainDenylist", s.DomainDenylist, []string{"spam.example"})
		check("settings GravatarEnabled", s.GravatarEnabled, false)
		check("settings PlantumlEnabled", s.PlantumlEnabled, true)
		check("settings PlantumlURL", s.PlantumlURL, "https://plantuml.example.com")
		check("settings PasswordAuthenticationEnabledForWeb", s.PasswordAuthenticationEnabledForWeb, false)
	}

	_, _, err = f.root.Settings.UpdateSettings(&gitlab.UpdateSettingsOptions{DefaultProjectVisibility: gitlab.Visibility("secret")})
	expectError("UpdateSettings with a wrong visibility", err, 400, "")

	_, _, err = f.root.Settings.UpdateSettings(&gitlab.UpdateSettingsOptions{
		DefaultProjectsLimit:                gitlab.Int(original.DefaultProjectsLimit),
		SignupEnabled:                       gitlab.Bool(original.SignupEnabled),
		SignInText:                          gitlab.String(original.SignInText),
		RestrictedVisibilityLevels:          &[]gitlab.VisibilityValue{},
		DefaultGroupVisibility:              gitlab.Visibility(original.DefaultGroupVisibility),
		TerminalMaxSessionTime:              gitlab.Int(original.TerminalMaxSessionTime),
		PollingIntervalMultiplier:           floatPointer(original.PollingIntervalMultiplier),
		EnabledGitAccessProtocol:            gitlab.String("nil"),
		DomainAllowlist:                     &[]string{},
		DomainDenylistEnabled:               gitlab.Bool(false),
		DomainDenylist:                      &[]string{},
		GravatarEnabled:                     gitlab.Bool(true),
		PlantumlEnabled:                     gitlab.Bool(false),
		PasswordAuthenticationEnabledForWeb: gitlab.Bool(true),
		Ed25519KeyRestriction:               gitlab.Int(0),
	})
	must("Settings.UpdateSettings (restore)", err)
	restored, _, err := f.root.Settings.GetSettings()
	must("Settings.GetSettings after restore", err)
	check("settings SignupEnabled restored", restored.SignupEnabled, true)
	check("settings EnabledGitAccessProtocol restored (nil: both)", restored.EnabledGitAccessProtocol, "")
	return "get, update sixteen settings of six types, read back, restore"
}

func floatPointer(v float64) *float64 { return &v }

func usernames(users []*gitlab.User) []string {
	var names []string
	for _, user := range users {
		names = append(names, user.Username)
	}
	return names
}

func (f *flows) metadata() string {
	// go-gitlab 0.73 has no call for GET /metadata.
	return "not offered by go-gitlab 0.73 (skipped)"
}

func main() {
	url, token := os.Getenv("FORGEKIT_URL"), os.Getenv("FORGEKIT_ROOT_TOKEN")
	if len(os.Args) > 2 {
		url, token = os.Args[1], os.Args[2]
	}
	if url == "" || token == "" {
		fmt.Fprintln(os.Stderr, "usage: go_flows <server URL> <root private token>")
		os.Exit(2)
	}
	fmt.Printf("go-gitlab against %s\n", url)
	f := &flows{url: url, gpg: newGpg()}
	defer f.gpg.close()
	f.root = f.client(token)
	steps := []struct {
		name string
		run  func() string
	}{
		{"version", f.version}, {"current user", f.currentUser}, {"users", f.users}, {"ssh keys", f.sshKeys},
		{"gpg keys", f.gpgKeys}, {"e-mails", f.emails}, {"custom attributes", f.customAttributes},
		{"personal access tokens", f.personalAccessTokens}, {"impersonation tokens", f.impersonationTokens},
		{"sudo", f.sudo}, {"oauth password grant", f.oauthPasswordGrant}, {"projects", f.projects}, {"groups", f.groups},
		{"members", f.members}, {"namespaces", f.namespaces}, {"application settings", f.settings},
		{"metadata", f.metadata},
	}
	for _, step := range steps {
		if !runStep(step.name, step.run) {
			f.gpg.close()
			os.Exit(1)
		}
	}
	fmt.Println("go-gitlab: all flows passed")
}

func runStep(name string, run func() string) (ok bool) {
	defer func() {
		if recovered := recover(); recovered != nil {
			if message, isFailure := recovered.(failure); isFailure {
				fmt.Printf("FAIL %s: %s\n", name, message)
			} else {
				fmt.Printf("FAIL %s: panic: %v\n", name, recovered)
			}
			ok = false
		}
	}()
	detail := run()
	fmt.Printf("ok   %s: %s\n", name, detail)
	return true
}
