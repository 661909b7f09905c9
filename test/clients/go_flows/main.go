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
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
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
	// What the repository flows build on: the "go-repo" project, the history of its default branch and the last three
	// commits of its feature branch (newest first).
	repo                      *gitlab.Project
	commitIDs, featureHistory []string
	// The "go-mr" project the merge requests flow leaves for the later merge request flows.
	mrProject *gitlab.Project
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
	// Made external in the same change: as in the original, an external user gets no personal projects.
	check("GetUser after ModifyUser: ProjectsLimit", user.ProjectsLimit, 0)
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

	// What later clients call: a group shared with a group, and a group's descendants.
	sharedGroup, resp, err := f.root.Groups.ShareGroupWithGroup(group.ID, &gitlab.ShareGroupWithGroupOptions{GroupID: gitlab.Int(site.ID), GroupAccess: gitlab.AccessLevel(gitlab.DeveloperPermissions)})
	must("Groups.ShareGroupWithGroup", err)
	checkStatus("ShareGroupWithGroup", resp, 201)
	check("ShareGroupWithGroup SharedWithGroups", [1]interface{}{len(sharedGroup.SharedWithGroups)}, [1]interface{}{1})
	check("ShareGroupWithGroup the share", [3]interface{}{sharedGroup.SharedWithGroups[0].GroupID, sharedGroup.SharedWithGroups[0].GroupFullPath, sharedGroup.SharedWithGroups[0].GroupAccessLevel},
		[3]interface{}{site.ID, site.FullPath, 30})
	_, _, err = f.root.Groups.ShareGroupWithGroup(group.ID, &gitlab.ShareGroupWithGroupOptions{GroupID: gitlab.Int(site.ID), GroupAccess: gitlab.AccessLevel(gitlab.ReporterPermissions)})
	expectError("ShareGroupWithGroup twice", err, 409, "{message: Shared group The group has already been shared with this group}")
	resp, err = f.root.Groups.UnshareGroupFromGroup(group.ID, site.ID)
	must("Groups.UnshareGroupFromGroup", err)
	checkStatus("UnshareGroupFromGroup", resp, 204)
	_, err = f.root.Groups.UnshareGroupFromGroup(group.ID, site.ID)
	expectError("UnshareGroupFromGroup twice", err, 404, "")
	descendants, _, err := f.root.Groups.ListDescendantGroups(group.ID, &gitlab.ListDescendantGroupsOptions{})
	must("Groups.ListDescendantGroups", err)
	descendantPaths := []string{}
	for _, descendant := range descendants {
		descendantPaths = append(descendantPaths, descendant.FullPath)
	}
	check("ListDescendantGroups", descendantPaths, []string{core.FullPath})

	// Deleting a group deletes the projects in it.
	page, _, err := f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("Go Site Page"), NamespaceID: gitlab.Int(site.ID)})
	must("Projects.CreateProject in the group to delete", err)
	resp, err = f.root.Groups.DeleteGroup(site.ID)
	must("Groups.DeleteGroup", err)
	checkStatus("DeleteGroup", resp, 202)
	waitGone("GetGroup of a deleted group", func() error { _, _, err := f.root.Groups.GetGroup(site.ID, nil); return err })
	waitGone("GetProject of a project of a deleted group", func() error { _, _, err := f.root.Projects.GetProject(page.ID, nil); return err })
	f.group, f.subgroup, f.groupProject, f.privateProject = group, core, app, mover
	return "create with a subgroup, list 2 pages with filters, search, get by path, update, projects, transfer both ways, share, group share, descendants, delete"
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

// --- repositories: files, commits, branches (one private project, "go-repo", its history built up flow by flow) ---

// gitBlobID is the object ID git gives a file's content.
func gitBlobID(content []byte) string {
	return fmt.Sprintf("%x", sha1.Sum(append([]byte(fmt.Sprintf("blob %d\x00", len(content))), content...)))
}

func sha256Hex(content []byte) string { return fmt.Sprintf("%x", sha256.Sum256(content)) }

// fileContent is a file's content at a ref, as GetFile gives it (Base64) decoded.
func (f *flows) fileContent(path, ref string) []byte {
	file, _, err := f.root.RepositoryFiles.GetFile(f.repo.ID, path, &gitlab.GetFileOptions{Ref: gitlab.String(ref)})
	must("RepositoryFiles.GetFile "+path+" at "+ref, err)
	check("GetFile "+path+": Encoding", file.Encoding, "base64")
	content, err := base64.StdEncoding.DecodeString(file.Content)
	must("decoding GetFile Content", err)
	return content
}

// headOf is the commit a branch (or any ref) names.
func (f *flows) headOf(ref string) *gitlab.Commit {
	commit, _, err := f.root.Commits.GetCommit(f.repo.ID, ref)
	must("Commits.GetCommit "+ref, err)
	return commit
}

func (f *flows) repositoryFiles() string {
	files := f.root.RepositoryFiles
	project, _, err := f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("go-repo"), Visibility: gitlab.Visibility(gitlab.PrivateVisibility)})
	must("Projects.CreateProject", err)
	f.repo = project
	check("CreateProject DefaultBranch (an empty repository)", project.DefaultBranch, "")

	// The first commit makes its branch, and makes it the default branch.
	readme := []byte("# Go repo\n")
	info, resp, err := files.CreateFile(project.ID, "README.md", &gitlab.CreateFileOptions{
		Branch: gitlab.String("main"), Content: gitlab.String(string(readme)), CommitMessage: gitlab.String("Add the README"),
		AuthorName: gitlab.String("Go Author"), AuthorEmail: gitlab.String("go-author@example.com"),
	})
	must("RepositoryFiles.CreateFile", err)
	checkStatus("CreateFile", resp, 201)
	check("CreateFile answer", *info, gitlab.FileInfo{FilePath: "README.md", Branch: "main"})
	project, _, err = f.root.Projects.GetProject(project.ID, nil)
	must("Projects.GetProject", err)
	check("GetProject DefaultBranch after the first commit", project.DefaultBranch, "main")
	first := f.headOf("main")
	check("the first commit: ParentIDs", len(first.ParentIDs), 0)
	check("the first commit: Title", first.Title, "Add the README")
	// The original keeps the message as given; forgekit ends it with a newline.
	check("the first commit: Message", strings.TrimSuffix(first.Message, "\n"), "Add the README")
	check("the first commit: author", [2]string{first.AuthorName, first.AuthorEmail}, [2]string{"Go Author", "go-author@example.com"})
	check("the first commit: committer", first.CommitterName, "Administrator")

	file, resp, err := files.GetFile(project.ID, "README.md", &gitlab.GetFileOptions{Ref: gitlab.String("main")})
	must("RepositoryFiles.GetFile", err)
	checkStatus("GetFile", resp, 200)
	want := gitlab.File{
		FileName: "README.md", FilePath: "README.md", Size: len(readme), Encoding: "base64", Ref: "main",
		BlobID: gitBlobID(readme), CommitID: first.ID, SHA256: sha256Hex(readme), LastCommitID: first.ID,
	}
	content, err := base64.StdEncoding.DecodeString(file.Content)
	must("decoding GetFile Content", err)
	check("GetFile Content (decoded)", content, readme)
	file.Content = ""
	check("GetFile", *file, want)
	meta, resp, err := files.GetFileMetaData(project.ID, "README.md", &gitlab.GetFileMetaDataOptions{Ref: gitlab.String("main")})
	must("RepositoryFiles.GetFileMetaData", err)
	checkStatus("GetFileMetaData", resp, 200)
	check("GetFileMetaData (the X-Gitlab-* headers of a HEAD)", *meta, want)
	raw, _, err := files.GetRawFile(project.ID, "README.md", &gitlab.GetRawFileOptions{Ref: gitlab.String("main")})
	must("RepositoryFiles.GetRawFile", err)
	check("GetRawFile", raw, readme)
	check("GetFile by commit ID", f.fileContent("README.md", first.ID), readme)
	_, _, err = files.GetFile(project.ID, "NOPE.md", &gitlab.GetFileOptions{Ref: gitlab.String("main")})
	expectError("GetFile of a missing file", err, 404, "{message: 404 File Not Found}")
	_, _, err = files.GetFileMetaData(project.ID, "NOPE.md", &gitlab.GetFileMetaDataOptions{Ref: gitlab.String("main")})
	expectError("GetFileMetaData of a missing file", err, 404, "")
	_, _, err = files.GetRawFile(project.ID, "README.md", &gitlab.GetRawFileOptions{Ref: gitlab.String("go-nowhere")})
	expectError("GetRawFile at a missing ref", err, 404, "{message: 404 Commit Not Found}")
	_, _, err = files.CreateFile(project.ID, "README.md", &gitlab.CreateFileOptions{Branch: gitlab.String("main"), Content: gitlab.String("again"), CommitMessage: gitlab.String("Again")})
	expectError("CreateFile of a file that exists", err, 400, "{message: A file with this name already exists}")

	// UpdateFile with the last commit the caller saw; once the file moved on, that commit is stale.
	info, resp, err = files.UpdateFile(project.ID, "README.md", &gitlab.UpdateFileOptions{
		Branch: gitlab.String("main"), Content: gitlab.String("# Go repo\n\nUpdated.\n"), CommitMessage: gitlab.String("Update the README"),
		LastCommitID: gitlab.String(file.LastCommitID),
	})
	must("RepositoryFiles.UpdateFile", err)
	checkStatus("UpdateFile", resp, 200)
	check("UpdateFile answer", *info, gitlab.FileInfo{FilePath: "README.md", Branch: "main"})
	second := f.headOf("main")
	check("the update's commit: ParentIDs", second.ParentIDs, []string{first.ID})
	check("GetFile after UpdateFile", f.fileContent("README.md", "main"), []byte("# Go repo\n\nUpdated.\n"))
	check("GetFile at the first commit still gives the old content", f.fileContent("README.md", first.ID), readme)
	meta, _, err = files.GetFileMetaData(project.ID, "README.md", &gitlab.GetFileMetaDataOptions{Ref: gitlab.String("main")})
	must("RepositoryFiles.GetFileMetaData after UpdateFile", err)
	check("GetFileMetaData after UpdateFile: LastCommitID, Size", [2]interface{}{meta.LastCommitID, meta.Size}, [2]interface{}{second.ID, len("# Go repo\n\nUpdated.\n")})
	_, _, err = files.UpdateFile(project.ID, "README.md", &gitlab.UpdateFileOptions{
		Branch: gitlab.String("main"), Content: gitlab.String("Stale\n"), CommitMessage: gitlab.String("Stale"), LastCommitID: gitlab.String(file.LastCommitID),
	})
	expectError("UpdateFile with a stale LastCommitID", err, 400, "{message: You are attempting to update a file that has changed since you started editing it.}")

	// A file in subdirectories: go-gitlab escapes `/`, the space and the dots (%2E) of the path.
	deep := "docs/user guide/intro.v1.md"
	info, _, err = files.CreateFile(project.ID, deep, &gitlab.CreateFileOptions{Branch: gitlab.String("main"), Content: gitlab.String("Intro\n"), CommitMessage: gitlab.String("Add the guide")})
	must("RepositoryFiles.CreateFile in subdirectories", err)
	check("CreateFile in subdirectories: FilePath", info.FilePath, deep)
	meta, _, err = files.GetFileMetaData(project.ID, deep, &gitlab.GetFileMetaDataOptions{Ref: gitlab.String("main")})
	must("RepositoryFiles.GetFileMetaData in subdirectories", err)
	check("GetFileMetaData in subdirectories: FileName, FilePath", [2]string{meta.FileName, meta.FilePath}, [2]string{"intro.v1.md", deep})
	raw, _, err = files.GetRawFile(project.ID, deep, &gitlab.GetRawFileOptions{Ref: gitlab.String("main")})
	must("RepositoryFiles.GetRawFile in subdirectories", err)
	check("GetRawFile in subdirectories", raw, []byte("Intro\n"))

	// Base64: bytes that are not text, as they were sent; ExecuteFilemode on create.
	logo := make([]byte, 1024)
	for i := range logo {
		logo[i] = byte(i)
	}
	_, _, err = files.CreateFile(project.ID, "assets/logo.bin", &gitlab.CreateFileOptions{
		Branch: gitlab.String("main"), Content: gitlab.String(base64.StdEncoding.EncodeToString(logo)), Encoding: gitlab.String("base64"),
		CommitMessage: gitlab.String("Add a binary file"),
	})
	must("RepositoryFiles.CreateFile base64", err)
	check("GetFile of a binary file", f.fileContent("assets/logo.bin", "main"), logo)
	raw, _, err = files.GetRawFile(project.ID, "assets/logo.bin", &gitlab.GetRawFileOptions{Ref: gitlab.String("main")})
	must("RepositoryFiles.GetRawFile of a binary file", err)
	check("GetRawFile of a binary file", raw, logo)
	meta, _, err = files.GetFileMetaData(project.ID, "assets/logo.bin", &gitlab.GetFileMetaDataOptions{Ref: gitlab.String("main")})
	must("RepositoryFiles.GetFileMetaData of a binary file", err)
	check("GetFileMetaData of a binary file: Size, BlobID", [2]interface{}{meta.Size, meta.BlobID}, [2]interface{}{1024, gitBlobID(logo)})
	script := []byte("#!/bin/sh\necho tool\n")
	_, _, err = files.CreateFile(project.ID, "bin/tool", &gitlab.CreateFileOptions{
		Branch: gitlab.String("main"), Content: gitlab.String(string(script)), CommitMessage: gitlab.String("Add a tool"), ExecuteFilemode: gitlab.Bool(true),
	})
	must("RepositoryFiles.CreateFile ExecuteFilemode", err)
	meta, _, err = files.GetFileMetaData(project.ID, "bin/tool", &gitlab.GetFileMetaDataOptions{Ref: gitlab.String("main")})
	must("RepositoryFiles.GetFileMetaData of an executable", err)
	check("GetFileMetaData ExecuteFilemode", meta.ExecuteFilemode, true)

	// StartBranch: the commit goes to a new branch made from it; the start branch does not move.
	mainHead := f.headOf("main").ID
	info, _, err = files.CreateFile(project.ID, "feature.txt", &gitlab.CreateFileOptions{
		Branch: gitlab.String("go/feature"), StartBranch: gitlab.String("main"), Content: gitlab.String("A feature\n"), CommitMessage: gitlab.String("Start a feature"),
	})
	must("RepositoryFiles.CreateFile StartBranch", err)
	check("CreateFile StartBranch: Branch", info.Branch, "go/feature")
	feature := f.headOf("go/feature")
	check("the new branch's commit: ParentIDs", feature.ParentIDs, []string{mainHead})
	check("GetFile on the new branch", f.fileContent("feature.txt", "go/feature"), []byte("A feature\n"))
	check("main did not move", f.headOf("main").ID, mainHead)
	_, _, err = files.GetFile(project.ID, "feature.txt", &gitlab.GetFileOptions{Ref: gitlab.String("main")})
	expectError("GetFile on the start branch", err, 404, "{message: 404 File Not Found}")
	_, _, err = files.CreateFile(project.ID, "x.txt", &gitlab.CreateFileOptions{Branch: gitlab.String("go-nowhere"), Content: gitlab.String("x"), CommitMessage: gitlab.String("x")})
	expectError("CreateFile to a branch that does not exist, without StartBranch", err, 400, "{message: You can only create or edit files when you are on a branch}")

	resp, err = files.DeleteFile(project.ID, "feature.txt", &gitlab.DeleteFileOptions{Branch: gitlab.String("go/feature"), CommitMessage: gitlab.String("Remove the feature file")})
	must("RepositoryFiles.DeleteFile", err)
	checkStatus("DeleteFile", resp, 204)
	_, _, err = files.GetFile(project.ID, "feature.txt", &gitlab.GetFileOptions{Ref: gitlab.String("go/feature")})
	expectError("GetFile of a deleted file", err, 404, "{message: 404 File Not Found}")
	check("GetFile of a deleted file at its last commit", f.fileContent("feature.txt", feature.ID), []byte("A feature\n"))
	resp, err = files.DeleteFile(project.ID, deep, &gitlab.DeleteFileOptions{Branch: gitlab.String("main"), CommitMessage: gitlab.String("Remove the guide"), LastCommitID: gitlab.String(meta.LastCommitID)})
	expectError("DeleteFile with another file's LastCommitID", err, 400, "")
	deepMeta, _, err := files.GetFileMetaData(project.ID, deep, &gitlab.GetFileMetaDataOptions{Ref: gitlab.String("main")})
	must("RepositoryFiles.GetFileMetaData", err)
	_, err = files.DeleteFile(project.ID, deep, &gitlab.DeleteFileOptions{Branch: gitlab.String("main"), CommitMessage: gitlab.String("Remove the guide"), LastCommitID: gitlab.String(deepMeta.LastCommitID)})
	must("RepositoryFiles.DeleteFile in subdirectories with LastCommitID", err)
	_, _, err = files.GetFileMetaData(project.ID, deep, &gitlab.GetFileMetaDataOptions{Ref: gitlab.String("main")})
	expectError("GetFileMetaData of a deleted file", err, 404, "")
	_, err = files.DeleteFile(project.ID, "NOPE.md", &gitlab.DeleteFileOptions{Branch: gitlab.String("main"), CommitMessage: gitlab.String("Nothing")})
	expectError("DeleteFile of a missing file", err, 400, "{message: A file with this name doesn't exist}")
	f.featureHistory = []string{f.headOf("go/feature").ID, feature.ID, mainHead}
	return "first commit makes the default branch, get, metadata (HEAD), raw, update, stale LastCommitID, base64, executable, subdirectories, StartBranch, delete"
}

func commitIDs(commits []*gitlab.Commit) []string {
	ids := []string{}
	for _, commit := range commits {
		ids = append(ids, commit.ID)
	}
	return ids
}

func (f *flows) commits() string {
	commits, project := f.root.Commits, f.repo
	action := func(kind gitlab.FileActionValue, path string) *gitlab.CommitActionOptions {
		return &gitlab.CommitActionOptions{Action: gitlab.FileAction(kind), FilePath: gitlab.String(path)}
	}
	withContent := func(a *gitlab.CommitActionOptions, content string) *gitlab.CommitActionOptions {
		a.Content = gitlab.String(content)
		return a
	}
	before := f.headOf("main")
	script := base64.StdEncoding.EncodeToString([]byte("#!/bin/sh\necho run\n"))
	laid, resp, err := commits.CreateCommit(project.ID, &gitlab.CreateCommitOptions{
		Branch: gitlab.String("main"), CommitMessage: gitlab.String("Lay out the tree\n\nSeveral files in one commit."),
		AuthorName: gitlab.String("Go Batch"), AuthorEmail: gitlab.String("go-batch@example.com"),
		Actions: []*gitlab.CommitActionOptions{
			withContent(action(gitlab.FileCreate, "src/main.go"), "package main\n"),
			withContent(action(gitlab.FileCreate, "src/doc.go"), ""),
			withContent(action(gitlab.FileCreate, "tmp/scratch.txt"), "scratch\n"),
			{Action: gitlab.FileAction(gitlab.FileCreate), FilePath: gitlab.String("bin/run"), Content: gitlab.String(script), Encoding: gitlab.String("base64")},
		},
	})
	must("Commits.CreateCommit", err)
	checkStatus("CreateCommit", resp, 201)
	check("CreateCommit Title", laid.Title, "Lay out the tree")
	check("CreateCommit Message", strings.TrimSuffix(laid.Message, "\n"), "Lay out the tree\n\nSeveral files in one commit.")
	check("CreateCommit author", [2]string{laid.AuthorName, laid.AuthorEmail}, [2]string{"Go Batch", "go-batch@example.com"})
	check("CreateCommit ParentIDs", laid.ParentIDs, []string{before.ID})
	check("CreateCommit Stats", laid.Stats, &gitlab.CommitStats{Additions: 4, Deletions: 0, Total: 4})
	check("CreateCommit ShortID", laid.ShortID, laid.ID[:8])
	checkTrue("CreateCommit CommittedDate", laid.CommittedDate != nil && time.Since(*laid.CommittedDate) < time.Hour, laid.CommittedDate)

	changed, _, err := commits.CreateCommit(project.ID, &gitlab.CreateCommitOptions{
		Branch: gitlab.String("main"), CommitMessage: gitlab.String("Every kind of action"),
		Actions: []*gitlab.CommitActionOptions{
			{Action: gitlab.FileAction(gitlab.FileUpdate), FilePath: gitlab.String("src/main.go"), Content: gitlab.String("package main\n\nfunc main() {}\n"), LastCommitID: gitlab.String(laid.ID)},
			{Action: gitlab.FileAction(gitlab.FileMove), PreviousPath: gitlab.String("src/doc.go"), FilePath: gitlab.String("pkg/doc.go")},
			action(gitlab.FileDelete, "tmp/scratch.txt"),
			{Action: gitlab.FileAction(gitlab.FileChmod), FilePath: gitlab.String("bin/run"), ExecuteFilemode: gitlab.Bool(true)},
			withContent(action(gitlab.FileCreate, "docs/notes.md"), "Notes\n"),
		},
	})
	must("Commits.CreateCommit (every action)", err)
	check("CreateCommit (every action) ParentIDs", changed.ParentIDs, []string{laid.ID})
	// (The moved file is empty: its move counts no lines, whether a diff sees a rename or a deletion and an addition.)
	check("CreateCommit (every action) Stats", changed.Stats, &gitlab.CommitStats{Additions: 3, Deletions: 1, Total: 4})
	check("after update: content", f.fileContent("src/main.go", "main"), []byte("package main\n\nfunc main() {}\n"))
	moved, _, err := f.root.RepositoryFiles.GetFileMetaData(project.ID, "pkg/doc.go", &gitlab.GetFileMetaDataOptions{Ref: gitlab.String("main")})
	must("RepositoryFiles.GetFileMetaData after move", err)
	check("after move: the new path", [2]interface{}{moved.Size, moved.BlobID}, [2]interface{}{0, gitBlobID(nil)})
	for _, gone := range []string{"src/doc.go", "tmp/scratch.txt"} {
		_, _, err = f.root.RepositoryFiles.GetFile(project.ID, gone, &gitlab.GetFileOptions{Ref: gitlab.String("main")})
		expectError("GetFile after move or delete: "+gone, err, 404, "{message: 404 File Not Found}")
	}
	run, _, err := f.root.RepositoryFiles.GetFileMetaData(project.ID, "bin/run", &gitlab.GetFileMetaDataOptions{Ref: gitlab.String("main")})
	must("RepositoryFiles.GetFileMetaData after chmod", err)
	check("after chmod: ExecuteFilemode", run.ExecuteFilemode, true)
	check("after chmod: content kept", f.fileContent("bin/run", "main"), []byte("#!/bin/sh\necho run\n"))
	_, _, err = commits.CreateCommit(project.ID, &gitlab.CreateCommitOptions{Branch: gitlab.String("main"), CommitMessage: gitlab.String("No"),
		Actions: []*gitlab.CommitActionOptions{withContent(action(gitlab.FileUpdate, "go-missing.txt"), "x")}})
	expectError("CreateCommit updating a missing file", err, 400, "{message: A file with this name doesn't exist}")
	// (Worded otherwise than the files API's refusal, as the original words it.)
	_, _, err = commits.CreateCommit(project.ID, &gitlab.CreateCommitOptions{Branch: gitlab.String("main"), CommitMessage: gitlab.String("No"),
		Actions: []*gitlab.CommitActionOptions{{Action: gitlab.FileAction(gitlab.FileUpdate), FilePath: gitlab.String("src/main.go"), Content: gitlab.String("stale\n"), LastCommitID: gitlab.String(laid.ID)}}})
	expectError("CreateCommit with a stale LastCommitID", err, 400, "{message: The file has changed since you started editing it: src/main.go}")
	check("a refused commit changes nothing", f.headOf("main").ID, changed.ID)

	// The history of main, newest first, page after page: each commit's parent is the next one.
	opt := &gitlab.ListCommitsOptions{RefName: gitlab.String("main"), ListOptions: gitlab.ListOptions{PerPage: 3, Page: 1}}
	var history []*gitlab.Commit
	pages := 0
	for {
		page, resp, err := commits.ListCommits(project.ID, opt)
		must("Commits.ListCommits", err)
		pages++
		check(fmt.Sprintf("ListCommits page %d: CurrentPage", pages), resp.CurrentPage, pages)
		history = append(history, page...)
		if resp.NextPage == 0 {
			check("ListCommits TotalItems", resp.TotalItems, len(history))
			check("ListCommits TotalPages", resp.TotalPages, pages)
			break
		}
		opt.Page = resp.NextPage
	}
	ids := commitIDs(history)
	checkTrue("ListCommits has several pages", pages >= 3, pages)
	check("ListCommits starts with the newest", ids[:2], []string{changed.ID, laid.ID})
	for i := 0; i+1 < len(history); i++ {
		check("ListCommits order: the parent of "+history[i].ShortID, history[i].ParentIDs, []string{history[i+1].ID})
	}
	check("ListCommits ends with the first commit", len(history[len(history)-1].ParentIDs), 0)
	list := func(what string, opt *gitlab.ListCommitsOptions) []string {
		opt.PerPage = 100
		listed, _, err := commits.ListCommits(project.ID, opt)
		must("Commits.ListCommits "+what, err)
		return commitIDs(listed)
	}
	check("ListCommits Path src/main.go", list("Path", &gitlab.ListCommitsOptions{RefName: gitlab.String("main"), Path: gitlab.String("src/main.go")}), []string{changed.ID, laid.ID})
	check("ListCommits Path src (a directory)", list("Path", &gitlab.ListCommitsOptions{RefName: gitlab.String("main"), Path: gitlab.String("src")}), []string{changed.ID, laid.ID})
	check("ListCommits of the feature branch", list("RefName", &gitlab.ListCommitsOptions{RefName: gitlab.String("go/feature")})[:3], f.featureHistory)
	since := *changed.CommittedDate
	checkTrue("ListCommits Since the newest commit's date includes it", list("Since", &gitlab.ListCommitsOptions{RefName: gitlab.String("main"), Since: &since})[0] == changed.ID)
	past, future := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC), time.Now().Add(24*time.Hour)
	check("ListCommits Until 2001", list("Until", &gitlab.ListCommitsOptions{RefName: gitlab.String("main"), Until: &past}), []string{})
	check("ListCommits Since 2001, Until tomorrow", list("Since, Until", &gitlab.ListCommitsOptions{RefName: gitlab.String("main"), Since: &past, Until: &future}), ids)
	check("ListCommits Since tomorrow", list("Since", &gitlab.ListCommitsOptions{RefName: gitlab.String("main"), Since: &future}), []string{})
	withStats, _, err := commits.ListCommits(project.ID, &gitlab.ListCommitsOptions{RefName: gitlab.String("main"), WithStats: gitlab.Bool(true), ListOptions: gitlab.ListOptions{PerPage: 1}})
	must("Commits.ListCommits WithStats", err)
	check("ListCommits WithStats", withStats[0].Stats, &gitlab.CommitStats{Additions: 3, Deletions: 1, Total: 4})

	one, resp, err := commits.GetCommit(project.ID, changed.ID)
	must("Commits.GetCommit", err)
	checkStatus("GetCommit", resp, 200)
	check("GetCommit ParentIDs", one.ParentIDs, []string{laid.ID})
	check("GetCommit Title", one.Title, "Every kind of action")
	check("GetCommit Stats", one.Stats, &gitlab.CommitStats{Additions: 3, Deletions: 1, Total: 4})
	check("GetCommit Status (no pipeline)", one.Status, (*gitlab.BuildStateValue)(nil))
	check("GetCommit LastPipeline", one.LastPipeline, (*gitlab.PipelineInfo)(nil))
	check("GetCommit ProjectID", one.ProjectID, project.ID)
	checkTrue("GetCommit AuthoredDate", one.AuthoredDate != nil && one.AuthoredDate.Equal(*changed.AuthoredDate), one.AuthoredDate)
	check("GetCommit by a short ID", f.headOf(changed.ID[:10]).ID, changed.ID)
	check("GetCommit by branch name", f.headOf("main").ID, changed.ID)
	check("GetCommit by a branch name with a slash", f.headOf("go/feature").ID, f.featureHistory[0])
	_, _, err = commits.GetCommit(project.ID, "go-no-such-ref")
	expectError("GetCommit of a missing ref", err, 404, "{message: 404 Commit Not Found}")
	f.commitIDs = ids
	return "batch commits with create, update, move, delete, chmod; list by ref, path, since/until, pages; get by ID and branch"
}

func branchNames(branches []*gitlab.Branch) []string {
	names := []string{}
	for _, branch := range branches {
		names = append(names, branch.Name)
	}
	return names
}

func accessLevels(levels []*gitlab.BranchAccessDescription) []gitlab.AccessLevelValue {
	values := []gitlab.AccessLevelValue{}
	for _, level := range levels {
		values = append(values, level.AccessLevel)
	}
	return values
}

func (f *flows) branches() string {
	branches, project := f.root.Branches, f.repo
	head := f.headOf("main")
	getBranch := func(name string) *gitlab.Branch {
		branch, _, err := branches.GetBranch(project.ID, name)
		must("Branches.GetBranch "+name, err)
		return branch
	}
	all, _, err := branches.ListBranches(project.ID, &gitlab.ListBranchesOptions{})
	must("Branches.ListBranches", err)
	check("ListBranches", branchNames(all), []string{"go/feature", "main"})
	main := getBranch("main")
	check("GetBranch Commit.ID", main.Commit.ID, head.ID)
	check("GetBranch Commit.Message", main.Commit.Message, head.Message)
	check("GetBranch Default, Merged, CanPush", [3]bool{main.Default, main.Merged, main.CanPush}, [3]bool{true, false, true})
	check("GetBranch WebURL", main.WebURL, f.url+"/root/go-repo/tree/main")
	// The first commit protected the default branch (default_branch_protection 2: maintainers push and merge).
	check("GetBranch of the default branch: Protected, DevelopersCanPush, DevelopersCanMerge", [3]bool{main.Protected, main.DevelopersCanPush, main.DevelopersCanMerge}, [3]bool{true, false, false})
	rule, _, err := f.root.ProtectedBranches.GetProtectedBranch(project.ID, "main")
	must("ProtectedBranches.GetProtectedBranch", err)
	check("GetProtectedBranch of the default branch", [2][]gitlab.AccessLevelValue{accessLevels(rule.PushAccessLevels), accessLevels(rule.MergeAccessLevels)},
		[2][]gitlab.AccessLevelValue{{gitlab.MaintainerPermissions}, {gitlab.MaintainerPermissions}})

	topic, resp, err := branches.CreateBranch(project.ID, &gitlab.CreateBranchOptions{Branch: gitlab.String("go/topic"), Ref: gitlab.String("main")})
	must("Branches.CreateBranch", err)
	checkStatus("CreateBranch", resp, 201)
	check("CreateBranch Name", topic.Name, "go/topic")
	check("CreateBranch Commit.ID (from a branch)", topic.Commit.ID, head.ID)
	check("CreateBranch Default, Protected", [2]bool{topic.Default, topic.Protected}, [2]bool{false, false})
	old, _, err := branches.CreateBranch(project.ID, &gitlab.CreateBranchOptions{Branch: gitlab.String("go-old"), Ref: gitlab.String(f.commitIDs[2])})
	must("Branches.CreateBranch from a commit", err)
	check("CreateBranch Commit.ID (from a commit)", old.Commit.ID, f.commitIDs[2])
	check("GetBranch Merged (behind main)", getBranch("go-old").Merged, true)
	check("GetBranch Merged (ahead of main)", getBranch("go/feature").Merged, false)
	_, _, err = branches.CreateBranch(project.ID, &gitlab.CreateBranchOptions{Branch: gitlab.String("go/topic"), Ref: gitlab.String("main")})
	expectError("CreateBranch of a branch that exists", err, 400, "{message: Branch already exists}")
	_, _, err = branches.CreateBranch(project.ID, &gitlab.CreateBranchOptions{Branch: gitlab.String("go-x"), Ref: gitlab.String("go-nowhere")})
	expectError("CreateBranch from a missing ref", err, 400, "{message: Invalid reference name}")
	_, _, err = branches.CreateBranch(project.ID, &gitlab.CreateBranchOptions{Branch: gitlab.String("go..bad"), Ref: gitlab.String("main")})
	expectError("CreateBranch with an invalid name", err, 400, "{message: Branch name is invalid}")
	_, _, err = branches.GetBranch(project.ID, "go-nowhere")
	expectError("GetBranch of a missing branch", err, 404, "{message: 404 Branch Not Found}")

	opt := &gitlab.ListBranchesOptions{ListOptions: gitlab.ListOptions{PerPage: 2, Page: 1}}
	var paged []*gitlab.Branch
	for {
		page, resp, err := branches.ListBranches(project.ID, opt)
		must("Branches.ListBranches", err)
		check("ListBranches TotalItems", resp.TotalItems, 4)
		paged = append(paged, page...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	check("ListBranches across 2 pages", branchNames(paged), []string{"go-old", "go/feature", "go/topic", "main"})
	found, _, err := branches.ListBranches(project.ID, &gitlab.ListBranchesOptions{Search: gitlab.String("go/")})
	must("Branches.ListBranches Search", err)
	check("ListBranches Search", branchNames(found), []string{"go/feature", "go/topic"})

	// ProtectBranch (PUT .../protect): maintainers only unless developers are let; a developer is refused then.
	_, _, err = f.root.ProjectMembers.AddProjectMember(project.ID, &gitlab.AddProjectMemberOptions{UserID: f.user.ID, AccessLevel: gitlab.AccessLevel(gitlab.DeveloperPermissions)})
	must("ProjectMembers.AddProjectMember", err)
	asDeveloper := f.asUser(f.user, "go-repo-developer")
	protected, resp, err := branches.ProtectBranch(project.ID, "go/topic", nil)
	must("Branches.ProtectBranch", err)
	checkStatus("ProtectBranch", resp, 200)
	check("ProtectBranch Protected, DevelopersCanPush, DevelopersCanMerge", [3]bool{protected.Protected, protected.DevelopersCanPush, protected.DevelopersCanMerge}, [3]bool{true, false, false})
	seen, _, err := asDeveloper.Branches.GetBranch(project.ID, "go/topic")
	must("Branches.GetBranch as a developer", err)
	check("GetBranch of a protected branch, as a developer: CanPush", seen.CanPush, false)
	createAsDeveloper := func(branch string) error {
		_, _, err := asDeveloper.RepositoryFiles.CreateFile(project.ID, "dev-"+strings.ReplaceAll(branch, "/", "-")+".txt", &gitlab.CreateFileOptions{
			Branch: gitlab.String(branch), Content: gitlab.String("By a developer\n"), CommitMessage: gitlab.String("Developer's file")})
		return err
	}
	expectError("CreateFile on a protected branch by a developer", createAsDeveloper("go/topic"), 400, "{message: You are not allowed to push into this branch}")
	expectError("CreateFile on the default branch by a developer", createAsDeveloper("main"), 400, "{message: You are not allowed to push into this branch}")
	_, err = asDeveloper.Branches.DeleteBranch(project.ID, "go/topic")
	expectError("DeleteBranch of a protected branch by a developer", err, 400,
		"{message: You are not allowed to delete protected branches from this project. Only a project master or owner can delete a protected branch.}")
	protected, _, err = branches.ProtectBranch(project.ID, "go/topic", &gitlab.ProtectBranchOptions{DevelopersCanPush: gitlab.Bool(true)})
	must("Branches.ProtectBranch DevelopersCanPush", err)
	check("ProtectBranch DevelopersCanPush: Protected, DevelopersCanPush, DevelopersCanMerge", [3]bool{protected.Protected, protected.DevelopersCanPush, protected.DevelopersCanMerge}, [3]bool{true, true, false})
	must("CreateFile on a branch developers may push to, by a developer", createAsDeveloper("go/topic"))
	check("the developer's commit", f.headOf("go/topic").AuthorName, f.user.Name)
	rule, _, err = f.root.ProtectedBranches.GetProtectedBranch(project.ID, "go/topic")
	must("ProtectedBranches.GetProtectedBranch", err)
	check("GetProtectedBranch after ProtectBranch", [2][]gitlab.AccessLevelValue{accessLevels(rule.PushAccessLevels), accessLevels(rule.MergeAccessLevels)},
		[2][]gitlab.AccessLevelValue{{gitlab.DeveloperPermissions}, {gitlab.MaintainerPermissions}})
	unprotected, resp, err := branches.UnprotectBranch(project.ID, "go/topic")
	must("Branches.UnprotectBranch", err)
	checkStatus("UnprotectBranch", resp, 200)
	check("UnprotectBranch Protected, DevelopersCanPush", [2]bool{unprotected.Protected, unprotected.DevelopersCanPush}, [2]bool{false, false})
	_, _, err = asDeveloper.Branches.ProtectBranch(project.ID, "go/topic", nil)
	expectError("ProtectBranch by a developer", err, 403, "{message: 403 Forbidden}")
	_, _, err = branches.ProtectBranch(project.ID, "go-nowhere", nil)
	expectError("ProtectBranch of a missing branch", err, 404, "{message: 404 Branch Not Found}")

	// A protection by pattern (/protected_branches): branches made later that match it are protected.
	pattern, resp, err := f.root.ProtectedBranches.ProtectRepositoryBranches(project.ID, &gitlab.ProtectRepositoryBranchesOptions{
		Name: gitlab.String("go/release-*"), PushAccessLevel: gitlab.AccessLevel(gitlab.NoPermissions), MergeAccessLevel: gitlab.AccessLevel(gitlab.DeveloperPermissions),
	})
	must("ProtectedBranches.ProtectRepositoryBranches", err)
	checkStatus("ProtectRepositoryBranches", resp, 201)
	check("ProtectRepositoryBranches", [2][]gitlab.AccessLevelValue{accessLevels(pattern.PushAccessLevels), accessLevels(pattern.MergeAccessLevels)},
		[2][]gitlab.AccessLevelValue{{gitlab.NoPermissions}, {gitlab.DeveloperPermissions}})
	_, _, err = f.root.ProtectedBranches.ProtectRepositoryBranches(project.ID, &gitlab.ProtectRepositoryBranchesOptions{Name: gitlab.String("go/release-*")})
	expectError("ProtectRepositoryBranches twice", err, 409, "{message: Protected branch 'go/release-*' already exists}")
	_, _, err = branches.CreateBranch(project.ID, &gitlab.CreateBranchOptions{Branch: gitlab.String("go/release-1"), Ref: gitlab.String("main")})
	must("Branches.CreateBranch matching a pattern", err)
	release := getBranch("go/release-1")
	check("GetBranch of a branch a pattern protects: Protected, DevelopersCanPush, DevelopersCanMerge", [3]bool{release.Protected, release.DevelopersCanPush, release.DevelopersCanMerge}, [3]bool{true, false, true})
	rules, _, err := f.root.ProtectedBranches.ListProtectedBranches(project.ID, &gitlab.ListProtectedBranchesOptions{})
	must("ProtectedBranches.ListProtectedBranches", err)
	var ruleNames []string
	for _, r := range rules {
		ruleNames = append(ruleNames, r.Name)
	}
	sort.Strings(ruleNames)
	check("ListProtectedBranches", ruleNames, []string{"go/release-*", "main"})
	resp, err = f.root.ProtectedBranches.UnprotectRepositoryBranches(project.ID, "go/release-*")
	must("ProtectedBranches.UnprotectRepositoryBranches", err)
	checkStatus("UnprotectRepositoryBranches", resp, 204)
	check("GetBranch once the pattern is gone: Protected", getBranch("go/release-1").Protected, false)
	_, _, err = f.root.ProtectedBranches.GetProtectedBranch(project.ID, "go/release-*")
	expectError("GetProtectedBranch of a deleted protection", err, 404, "")

	// Delete: never the default branch; merged branches all at once.
	resp, err = branches.DeleteBranch(project.ID, "go/release-1")
	must("Branches.DeleteBranch", err)
	checkStatus("DeleteBranch", resp, 204)
	_, _, err = branches.GetBranch(project.ID, "go/release-1")
	expectError("GetBranch of a deleted branch", err, 404, "{message: 404 Branch Not Found}")
	_, err = branches.DeleteBranch(project.ID, "go/release-1")
	expectError("DeleteBranch of a missing branch", err, 404, "{message: 404 Branch Not Found}")
	_, err = branches.DeleteBranch(project.ID, "main")
	expectError("DeleteBranch of the default branch", err, 400, "{message: The default branch of a project cannot be deleted.}")
	check("the default branch is still there", getBranch("main").Commit.ID, head.ID)
	resp, err = branches.DeleteMergedBranches(project.ID)
	must("Branches.DeleteMergedBranches", err)
	checkStatus("DeleteMergedBranches", resp, 202)
	// The original deletes them in the background: allow it a moment.
	waitGone("GetBranch of a merged branch after DeleteMergedBranches", func() error { _, _, err := branches.GetBranch(project.ID, "go-old"); return err })
	all, _, err = branches.ListBranches(project.ID, &gitlab.ListBranchesOptions{})
	must("Branches.ListBranches after deletes", err)
	check("ListBranches after DeleteMergedBranches (not merged: kept)", branchNames(all), []string{"go/feature", "go/topic", "main"})
	return "list 2 pages, search, get, create from a branch and a commit, merged, protect and unprotect (both APIs, a pattern), a developer refused, delete, not the default, delete merged"
}

func tagNames(tags []*gitlab.Tag) []string {
	names := []string{}
	for _, tag := range tags {
		names = append(names, tag.Name)
	}
	return names
}

func (f *flows) tags() string {
	tags, project := f.root.Tags, f.repo
	head, older := f.headOf("main"), f.headOf(f.commitIDs[2])
	light, resp, err := tags.CreateTag(project.ID, &gitlab.CreateTagOptions{TagName: gitlab.String("v1.0.0"), Ref: gitlab.String(older.ID)})
	must("Tags.CreateTag", err)
	checkStatus("CreateTag", resp, 201)
	check("CreateTag (lightweight) Name, Message, Target", [3]string{light.Name, light.Message, light.Target}, [3]string{"v1.0.0", "", older.ID})
	check("CreateTag (lightweight) Commit", [2]string{light.Commit.ID, light.Commit.Message}, [2]string{older.ID, older.Message})
	check("CreateTag (lightweight) Release", light.Release, (*gitlab.ReleaseNote)(nil))
	annotated, _, err := tags.CreateTag(project.ID, &gitlab.CreateTagOptions{
		TagName: gitlab.String("v1.1.0"), Ref: gitlab.String("main"), Message: gitlab.String("Release 1.1.0\n"), ReleaseDescription: gitlab.String("First notes"),
	})
	must("Tags.CreateTag annotated", err)
	check("CreateTag (annotated) Message", annotated.Message, "Release 1.1.0")
	check("CreateTag (annotated) Commit.ID", annotated.Commit.ID, head.ID)
	checkTrue("CreateTag (annotated) Target is the tag object", regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(annotated.Target) && annotated.Target != head.ID, annotated.Target)
	check("CreateTag with ReleaseDescription: Release", annotated.Release, &gitlab.ReleaseNote{TagName: "v1.1.0", Description: "First notes"})
	slashed, _, err := tags.CreateTag(project.ID, &gitlab.CreateTagOptions{TagName: gitlab.String("go/rc-2.0.0"), Ref: gitlab.String("go/feature")})
	must("Tags.CreateTag from a branch with a slash", err)
	check("CreateTag from a branch with a slash: Commit.ID", slashed.Commit.ID, f.featureHistory[0])
	// The original answers a refused tag creation 400; SPEC.md (and forgekit) 405.
	_, _, err = tags.CreateTag(project.ID, &gitlab.CreateTagOptions{TagName: gitlab.String("v1.0.0"), Ref: gitlab.String("main")})
	expectError("CreateTag of a tag that exists", err, 405, "{message: Tag v1.0.0 already exists}")
	_, _, err = tags.CreateTag(project.ID, &gitlab.CreateTagOptions{TagName: gitlab.String("v9"), Ref: gitlab.String("go-nowhere")})
	expectError("CreateTag at a missing ref", err, 405, "{message: Target go-nowhere is invalid}")

	listTags := func(what string, opt *gitlab.ListTagsOptions) []string {
		listed, _, err := tags.ListTags(project.ID, opt)
		must("Tags.ListTags "+what, err)
		return tagNames(listed)
	}
	check("ListTags (by name, reverse)", listTags("", &gitlab.ListTagsOptions{}), []string{"v1.1.0", "v1.0.0", "go/rc-2.0.0"})
	check("ListTags OrderBy name, Sort asc", listTags("OrderBy", &gitlab.ListTagsOptions{OrderBy: gitlab.String("name"), Sort: gitlab.String("asc")}), []string{"go/rc-2.0.0", "v1.0.0", "v1.1.0"})
	check("ListTags Search", listTags("Search", &gitlab.ListTagsOptions{Search: gitlab.String("v1")}), []string{"v1.1.0", "v1.0.0"})
	opt := &gitlab.ListTagsOptions{ListOptions: gitlab.ListOptions{PerPage: 2, Page: 1}}
	var paged []*gitlab.Tag
	for {
		page, resp, err := tags.ListTags(project.ID, opt)
		must("Tags.ListTags", err)
		check("ListTags TotalItems", resp.TotalItems, 3)
		paged = append(paged, page...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	check("ListTags across 2 pages", tagNames(paged), []string{"v1.1.0", "v1.0.0", "go/rc-2.0.0"})
	shown, _, err := tags.GetTag(project.ID, "v1.1.0")
	must("Tags.GetTag", err)
	check("GetTag", [4]string{shown.Name, shown.Message, shown.Target, shown.Commit.ID}, [4]string{"v1.1.0", "Release 1.1.0", annotated.Target, head.ID})
	shown, _, err = tags.GetTag(project.ID, "go/rc-2.0.0")
	must("Tags.GetTag with a slash in the name", err)
	check("GetTag with a slash in the name: Target", shown.Target, f.featureHistory[0])
	_, _, err = tags.GetTag(project.ID, "v0.0.0")
	expectError("GetTag of a missing tag", err, 404, "{message: 404 Tag Not Found}")

	// Release notes through the tags API (go-gitlab's CreateReleaseNote and UpdateReleaseNote)...
	note, resp, err := tags.CreateReleaseNote(project.ID, "v1.0.0", &gitlab.CreateReleaseNoteOptions{Description: gitlab.String("Notes for 1.0.0")})
	must("Tags.CreateReleaseNote", err)
	checkStatus("CreateReleaseNote", resp, 201)
	check("CreateReleaseNote", *note, gitlab.ReleaseNote{TagName: "v1.0.0", Description: "Notes for 1.0.0"})
	_, _, err = tags.CreateReleaseNote(project.ID, "v1.0.0", &gitlab.CreateReleaseNoteOptions{Description: gitlab.String("Again")})
	expectError("CreateReleaseNote twice", err, 409, "{message: Release already exists}")
	_, _, err = tags.CreateReleaseNote(project.ID, "v0.0.0", &gitlab.CreateReleaseNoteOptions{Description: gitlab.String("None")})
	expectError("CreateReleaseNote of a missing tag", err, 404, "{message: Tag does not exist}")
	note, resp, err = tags.UpdateReleaseNote(project.ID, "v1.0.0", &gitlab.UpdateReleaseNoteOptions{Description: gitlab.String("Changed notes for 1.0.0")})
	must("Tags.UpdateReleaseNote", err)
	checkStatus("UpdateReleaseNote", resp, 200)
	check("UpdateReleaseNote", *note, gitlab.ReleaseNote{TagName: "v1.0.0", Description: "Changed notes for 1.0.0"})
	_, _, err = tags.UpdateReleaseNote(project.ID, "go/rc-2.0.0", &gitlab.UpdateReleaseNoteOptions{Description: gitlab.String("None")})
	expectError("UpdateReleaseNote of a tag without release notes", err, 404, "{message: Release does not exist}")
	shown, _, err = tags.GetTag(project.ID, "v1.0.0")
	must("Tags.GetTag after UpdateReleaseNote", err)
	check("GetTag Release after UpdateReleaseNote", shown.Release, &gitlab.ReleaseNote{TagName: "v1.0.0", Description: "Changed notes for 1.0.0"})

	// ...and through the releases API (GetRelease, UpdateRelease and DeleteRelease escape the dots: v1%2E0%2E0).
	release, _, err := f.root.Releases.GetRelease(project.ID, "v1.0.0")
	must("Releases.GetRelease", err)
	check("GetRelease", [3]string{release.TagName, release.Description, release.Commit.ID}, [3]string{"v1.0.0", "Changed notes for 1.0.0", older.ID})
	release, _, err = f.root.Releases.UpdateRelease(project.ID, "v1.0.0", &gitlab.UpdateReleaseOptions{Name: gitlab.String("Go 1.0.0")})
	must("Releases.UpdateRelease (Description sent as null)", err)
	check("UpdateRelease Name, Description", [2]string{release.Name, release.Description}, [2]string{"Go 1.0.0", "Changed notes for 1.0.0"})
	releases, _, err := f.root.Releases.ListReleases(project.ID, &gitlab.ListReleasesOptions{})
	must("Releases.ListReleases", err)
	var releaseTags []string
	for _, r := range releases {
		releaseTags = append(releaseTags, r.TagName)
	}
	sort.Strings(releaseTags)
	check("ListReleases", releaseTags, []string{"v1.0.0", "v1.1.0"})
	release, resp, err = f.root.Releases.DeleteRelease(project.ID, "v1.0.0")
	must("Releases.DeleteRelease", err)
	checkStatus("DeleteRelease", resp, 200)
	check("DeleteRelease answers the release", [2]string{release.TagName, release.Name}, [2]string{"v1.0.0", "Go 1.0.0"})
	shown, _, err = tags.GetTag(project.ID, "v1.0.0")
	must("Tags.GetTag after DeleteRelease", err)
	check("GetTag Release after DeleteRelease (the tag stays)", shown.Release, (*gitlab.ReleaseNote)(nil))

	// Delete: a developer may change no tag that exists; a maintainer may.
	_, err = f.asUser(f.user, "go-repo-tags").Tags.DeleteTag(project.ID, "v1.0.0")
	expectError("DeleteTag by a developer", err, 400, "{message: You are not allowed to change existing tags on this project.}")
	for _, name := range []string{"v1.0.0", "go/rc-2.0.0"} {
		resp, err = tags.DeleteTag(project.ID, name)
		must("Tags.DeleteTag "+name, err)
		checkStatus("DeleteTag", resp, 204)
	}
	_, _, err = tags.GetTag(project.ID, "v1.0.0")
	expectError("GetTag of a deleted tag", err, 404, "{message: 404 Tag Not Found}")
	_, err = tags.DeleteTag(project.ID, "v1.0.0")
	expectError("DeleteTag of a missing tag", err, 404, "{message: 404 Tag Not Found}")
	check("ListTags after deletes", listTags("after deletes", &gitlab.ListTagsOptions{}), []string{"v1.1.0"})
	check("the deleted tag's commit is still there", f.headOf(older.ID).ID, older.ID)
	return "lightweight and annotated, release notes (tags and releases APIs), list in order and 2 pages, search, get, errors, delete"
}

type nameStatus struct{ Name, Status string }

func statusesOf(statuses []*gitlab.CommitStatus) []nameStatus {
	pairs := []nameStatus{}
	for _, status := range statuses {
		pairs = append(pairs, nameStatus{status.Name, status.Status})
	}
	sort.Slice(pairs, func(i, j int) bool {
		return pairs[i].Name < pairs[j].Name || pairs[i].Name == pairs[j].Name && pairs[i].Status < pairs[j].Status
	})
	return pairs
}

func (f *flows) commitStatuses() string {
	commits, project, sha := f.root.Commits, f.repo, f.commitIDs[0]
	set := func(what string, opt *gitlab.SetCommitStatusOptions) *gitlab.CommitStatus {
		status, resp, err := commits.SetCommitStatus(project.ID, sha, opt)
		must("Commits.SetCommitStatus "+what, err)
		checkStatus("SetCommitStatus "+what, resp, 201)
		return status
	}
	running := set("running", &gitlab.SetCommitStatusOptions{
		State: gitlab.Running, Name: gitlab.String("go-ci"), Ref: gitlab.String("main"), TargetURL: gitlab.String("https://ci.example.com/go/1"),
		Description: gitlab.String("Building"), Coverage: floatPointer(80.5),
	})
	check("SetCommitStatus", [6]interface{}{running.SHA, running.Ref, running.Status, running.Name, running.TargetURL, running.Description},
		[6]interface{}{sha, "main", "running", "go-ci", "https://ci.example.com/go/1", "Building"})
	check("SetCommitStatus Coverage, AllowFailure, Author", [3]interface{}{running.Coverage, running.AllowFailure, running.Author.Username}, [3]interface{}{80.5, false, "root"})
	checkTrue("SetCommitStatus CreatedAt, StartedAt (running), FinishedAt", running.CreatedAt != nil && running.StartedAt != nil && running.FinishedAt == nil, running)
	shown := f.headOf(sha)
	check("GetCommit Status with a running status", *shown.Status, gitlab.Running)
	checkTrue("GetCommit LastPipeline", shown.LastPipeline != nil && shown.LastPipeline.Ref == "main" && shown.LastPipeline.SHA == sha && shown.LastPipeline.Status == "running", shown.LastPipeline)
	// The same name's running status is the one that finishes; PipelineID names the pipeline it is in.
	done := set("success", &gitlab.SetCommitStatusOptions{State: gitlab.Success, Name: gitlab.String("go-ci"), Ref: gitlab.String("main"), PipelineID: gitlab.Int(shown.LastPipeline.ID)})
	check("SetCommitStatus success after running: the same status", [3]interface{}{done.ID, done.Status, done.Description}, [3]interface{}{running.ID, "success", "Building"})
	checkTrue("SetCommitStatus FinishedAt (success)", done.FinishedAt != nil, done.FinishedAt)
	check("GetCommit Status after success", *f.headOf(sha).Status, gitlab.Success)
	lint := set("failed", &gitlab.SetCommitStatusOptions{State: gitlab.Failed, Context: gitlab.String("go-lint"), Ref: gitlab.String("main")})
	check("SetCommitStatus with Context: Name, Status, Coverage", [3]interface{}{lint.Name, lint.Status, lint.Coverage}, [3]interface{}{"go-lint", "failed", 0.0})
	check("GetCommit Status with a failed status", *f.headOf(sha).Status, gitlab.Failed)
	// After a final state a new status is made; the old one is kept, retried.
	again := set("success again", &gitlab.SetCommitStatusOptions{State: gitlab.Success, Name: gitlab.String("go-lint"), Ref: gitlab.String("main")})
	checkTrue("SetCommitStatus after a final state makes another status", again.ID != lint.ID, again.ID, lint.ID)
	check("GetCommit Status once every latest status succeeded", *f.headOf(sha).Status, gitlab.Success)
	list := func(what string, opt *gitlab.GetCommitStatusesOptions) []*gitlab.CommitStatus {
		statuses, _, err := commits.GetCommitStatuses(project.ID, sha, opt)
		must("Commits.GetCommitStatuses "+what, err)
		return statuses
	}
	check("GetCommitStatuses (the latest of each name)", statusesOf(list("", &gitlab.GetCommitStatusesOptions{})), []nameStatus{{"go-ci", "success"}, {"go-lint", "success"}})
	check("GetCommitStatuses All", statusesOf(list("All", &gitlab.GetCommitStatusesOptions{All: gitlab.Bool(true)})),
		[]nameStatus{{"go-ci", "success"}, {"go-lint", "failed"}, {"go-lint", "success"}})
	named := list("Name", &gitlab.GetCommitStatusesOptions{Name: gitlab.String("go-lint")})
	checkTrue("GetCommitStatuses Name", len(named) == 1 && named[0].ID == again.ID, named)
	check("GetCommitStatuses Ref (another ref)", len(list("Ref", &gitlab.GetCommitStatusesOptions{Ref: gitlab.String("go/feature")})), 0)
	opt := &gitlab.GetCommitStatusesOptions{All: gitlab.Bool(true), ListOptions: gitlab.ListOptions{PerPage: 2, Page: 1}}
	var paged []*gitlab.CommitStatus
	for {
		page, resp, err := commits.GetCommitStatuses(project.ID, sha, opt)
		must("Commits.GetCommitStatuses", err)
		check("GetCommitStatuses TotalItems", resp.TotalItems, 3)
		paged = append(paged, page...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	check("GetCommitStatuses across 2 pages", statusesOf(paged), []nameStatus{{"go-ci", "success"}, {"go-lint", "failed"}, {"go-lint", "success"}})
	set("pending", &gitlab.SetCommitStatusOptions{State: gitlab.Pending, Name: gitlab.String("go-deploy"), Ref: gitlab.String("main")})
	_, _, err := commits.SetCommitStatus(project.ID, sha, &gitlab.SetCommitStatusOptions{State: gitlab.Pending, Name: gitlab.String("go-deploy"), Ref: gitlab.String("main")})
	expectError("SetCommitStatus pending twice", err, 400, `{message: Cannot transition status via :enqueue from :pending (Reason(s): Status cannot transition via "enqueue")}`)
	check("GetCommit Status with a pending status beside successes", *f.headOf(sha).Status, gitlab.Running)
	_, _, err = commits.SetCommitStatus(project.ID, "0000000000000000000000000000000000000000", &gitlab.SetCommitStatusOptions{State: gitlab.Success})
	expectError("SetCommitStatus of a missing commit", err, 404, "{message: 404 Commit Not Found}")
	return "running then success (one status), context, failed, retried, commit status and last pipeline, list latest/all/name/ref/pages, refusals"
}

func (f *flows) commitComments() string {
	commits, project, sha := f.root.Commits, f.repo, f.commitIDs[0]
	post := func(what string, opt *gitlab.PostCommitCommentOptions) *gitlab.CommitComment {
		comment, resp, err := commits.PostCommitComment(project.ID, sha, opt)
		must("Commits.PostCommitComment "+what, err)
		checkStatus("PostCommitComment "+what, resp, 201)
		return comment
	}
	type placed struct {
		Note, Path string
		Line       int
		LineType   string
	}
	// go-gitlab sends path, line and line_type as null when they are not given.
	plain := post("on the commit", &gitlab.PostCommitCommentOptions{Note: gitlab.String("Looks good")})
	check("PostCommitComment on the commit", placed{plain.Note, plain.Path, plain.Line, plain.LineType}, placed{"Looks good", "", 0, ""})
	check("PostCommitComment Author", plain.Author.Username, "root")
	// A line the commit adds: the comment is on it.
	added := post("on an added line", &gitlab.PostCommitCommentOptions{Note: gitlab.String("Nice func"), Path: gitlab.String("src/main.go"), Line: gitlab.Int(3), LineType: gitlab.String("new")})
	check("PostCommitComment on an added line", placed{added.Note, added.Path, added.Line, added.LineType}, placed{"Nice func", "src/main.go", 3, "new"})
	// A line the commit does not change: the comment goes on the commit itself.
	elsewhere := post("on an unchanged line", &gitlab.PostCommitCommentOptions{Note: gitlab.String("Somewhere"), Path: gitlab.String("src/main.go"), Line: gitlab.Int(1), LineType: gitlab.String("new")})
	check("PostCommitComment on a line the commit did not change", placed{elsewhere.Note, elsewhere.Path, elsewhere.Line, elsewhere.LineType}, placed{"Somewhere", "", 0, ""})
	comments, _, err := commits.GetCommitComments(project.ID, sha, &gitlab.GetCommitCommentsOptions{})
	must("Commits.GetCommitComments", err)
	var notes []string
	for _, comment := range comments {
		notes = append(notes, comment.Note)
	}
	check("GetCommitComments (oldest first)", notes, []string{"Looks good", "Nice func", "Somewhere"})
	_, _, err = commits.PostCommitComment(project.ID, sha, &gitlab.PostCommitCommentOptions{Note: gitlab.String(" ")})
	expectError("PostCommitComment with a blank note", err, 400, "")
	_, _, err = commits.GetCommitComments(project.ID, "go-no-such-ref", &gitlab.GetCommitCommentsOptions{})
	expectError("GetCommitComments of a missing commit", err, 404, "{message: 404 Commit Not Found}")
	return "on the commit (null path, line, line_type), on an added line, on an unchanged line (on the commit), list in order"
}

func treePaths(nodes []*gitlab.TreeNode) []string {
	paths := []string{}
	for _, node := range nodes {
		paths = append(paths, node.Path)
	}
	return paths
}

// archiveFiles lists the files of a zip or tar.gz archive (directories left out), with their contents.
func archiveFiles(what string, data []byte, zipped bool) map[string][]byte {
	files := map[string][]byte{}
	if zipped {
		archive, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		must(what+": reading the zip archive", err)
		for _, file := range archive.File {
			if strings.HasSuffix(file.Name, "/") {
				continue
			}
			reader, err := file.Open()
			must(what+": opening "+file.Name, err)
			content, err := io.ReadAll(reader)
			must(what+": reading "+file.Name, err)
			files[file.Name] = content
		}
		return files
	}
	unzipped, err := gzip.NewReader(bytes.NewReader(data))
	must(what+": reading the gzip stream", err)
	archive := tar.NewReader(unzipped)
	for {
		header, err := archive.Next()
		if err == io.EOF {
			return files
		}
		must(what+": reading the tar archive", err)
		if header.Typeflag == tar.TypeReg {
			content, err := io.ReadAll(archive)
			must(what+": reading "+header.Name, err)
			files[header.Name] = content
		}
	}
}

func (f *flows) repository() string {
	repositories, commits, project := f.root.Repositories, f.root.Commits, f.repo
	changed, laid, before := f.headOf(f.commitIDs[0]), f.headOf(f.commitIDs[1]), f.headOf(f.commitIDs[2])

	// GetCommitDiff: one entry per file a commit changed, against its first parent; its hunks, without file headers.
	// (The empty file the commit moved is left out: git's versions differ on pairing an empty file's move as a rename.)
	listed, _, err := commits.GetCommitDiff(project.ID, changed.ID, &gitlab.GetCommitDiffOptions{})
	must("Commits.GetCommitDiff", err)
	diffs := map[string]gitlab.Diff{}
	for _, diff := range listed {
		diffs[diff.NewPath] = *diff
	}
	check("GetCommitDiff of an update", diffs["src/main.go"], gitlab.Diff{OldPath: "src/main.go", NewPath: "src/main.go", AMode: "100644", BMode: "100644",
		Diff: "@@ -1 +1,3 @@\n package main\n+\n+func main() {}\n"})
	check("GetCommitDiff of a new file", diffs["docs/notes.md"], gitlab.Diff{OldPath: "docs/notes.md", NewPath: "docs/notes.md", AMode: "0", BMode: "100644", NewFile: true, Diff: "@@ -0,0 +1 @@\n+Notes\n"})
	check("GetCommitDiff of a deleted file", diffs["tmp/scratch.txt"], gitlab.Diff{OldPath: "tmp/scratch.txt", NewPath: "tmp/scratch.txt", AMode: "100644", BMode: "0",
		DeletedFile: true, Diff: "@@ -1 +0,0 @@\n-scratch\n"})
	check("GetCommitDiff of a mode change", diffs["bin/run"], gitlab.Diff{OldPath: "bin/run", NewPath: "bin/run", AMode: "100644", BMode: "100755"})
	page, resp, err := commits.GetCommitDiff(project.ID, changed.ID, &gitlab.GetCommitDiffOptions{PerPage: 2, Page: 2})
	must("Commits.GetCommitDiff page 2", err)
	check("GetCommitDiff page 2", [3]int{len(page), resp.TotalItems, resp.CurrentPage}, [3]int{2, len(listed), 2})
	renamed, _, err := commits.CreateCommit(project.ID, &gitlab.CreateCommitOptions{Branch: gitlab.String("main"), CommitMessage: gitlab.String("Rename the notes"),
		Actions: []*gitlab.CommitActionOptions{{Action: gitlab.FileAction(gitlab.FileMove), PreviousPath: gitlab.String("docs/notes.md"), FilePath: gitlab.String("docs/NOTES.md")}}})
	must("Commits.CreateCommit (a rename)", err)
	listed, _, err = commits.GetCommitDiff(project.ID, renamed.ID, nil)
	must("Commits.GetCommitDiff of a rename", err)
	checkTrue("GetCommitDiff of a rename", len(listed) == 1 && *listed[0] == gitlab.Diff{OldPath: "docs/notes.md", NewPath: "docs/NOTES.md", AMode: "100644", BMode: "100644", RenamedFile: true}, listed)
	_, _, err = commits.GetCommitDiff(project.ID, "go-no-such-ref", nil)
	expectError("GetCommitDiff of a missing commit", err, 404, "{message: 404 Commit Not Found}")

	// CherryPickCommit: a commit's changes onto a branch made before it, in a new commit; a second time picks nothing.
	_, _, err = f.root.Branches.CreateBranch(project.ID, &gitlab.CreateBranchOptions{Branch: gitlab.String("go-pick"), Ref: gitlab.String(before.ID)})
	must("Branches.CreateBranch", err)
	picked, resp, err := commits.CherryPickCommit(project.ID, laid.ID, &gitlab.CherryPickCommitOptions{Branch: gitlab.String("go-pick")})
	must("Commits.CherryPickCommit", err)
	checkStatus("CherryPickCommit", resp, 201)
	check("CherryPickCommit answers the branch's new head", picked.ID, f.headOf("go-pick").ID)
	checkTrue("CherryPickCommit makes a new commit", picked.ID != laid.ID, picked.ID)
	check("CherryPickCommit ParentIDs, author, committer", [4]interface{}{picked.ParentIDs, picked.AuthorName, picked.AuthorEmail, picked.CommitterName},
		[4]interface{}{[]string{before.ID}, "Go Batch", "go-batch@example.com", "Administrator"})
	checkTrue("CherryPickCommit AuthoredDate (the picked commit's)", picked.AuthoredDate != nil && picked.AuthoredDate.Equal(*laid.AuthoredDate), picked.AuthoredDate)
	// (forgekit ends a commit message with a newline; the original keeps it as given.)
	check("CherryPickCommit Message", strings.TrimSuffix(picked.Message, "\n"), "Lay out the tree\n\nSeveral files in one commit.\n\n(cherry picked from commit "+laid.ID+")")
	check("CherryPickCommit: the picked files", f.fileContent("src/main.go", "go-pick"), []byte("package main\n"))
	_, _, err = commits.CherryPickCommit(project.ID, laid.ID, &gitlab.CherryPickCommitOptions{Branch: gitlab.String("go-pick")})
	expectError("CherryPickCommit of a change already there", err, 400,
		"{message: Sorry, we cannot cherry-pick this commit automatically.\n                   This commit may already have been cherry-picked, or a more recent commit may have updated some of its content.}")
	_, _, err = commits.CherryPickCommit(project.ID, laid.ID, &gitlab.CherryPickCommitOptions{Branch: gitlab.String("go-nowhere")})
	expectError("CherryPickCommit onto a missing branch", err, 404, "{message: 404 Branch Not Found}")

	// ListTree: directories first, then files; Recursive lists the directories at every depth first.
	top, _, err := repositories.ListTree(project.ID, &gitlab.ListTreeOptions{Ref: gitlab.String("main")})
	must("Repositories.ListTree", err)
	readme := []byte("# Go repo\n\nUpdated.\n")
	want := []gitlab.TreeNode{{Name: "assets", Type: "tree", Path: "assets", Mode: "040000"}, {Name: "bin", Type: "tree", Path: "bin", Mode: "040000"},
		{Name: "docs", Type: "tree", Path: "docs", Mode: "040000"}, {Name: "pkg", Type: "tree", Path: "pkg", Mode: "040000"},
		{Name: "src", Type: "tree", Path: "src", Mode: "040000"}, {ID: gitBlobID(readme), Name: "README.md", Type: "blob", Path: "README.md", Mode: "100644"}}
	var got []gitlab.TreeNode
	for i, node := range top {
		if node.Type == "tree" {
			checkTrue("ListTree ID of a directory", regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(node.ID), node.ID)
			want[i].ID = node.ID
		}
		got = append(got, *node)
	}
	check("ListTree", got, want)
	bin, _, err := repositories.ListTree(project.ID, &gitlab.ListTreeOptions{Ref: gitlab.String("main"), Path: gitlab.String("bin")})
	must("Repositories.ListTree Path", err)
	checkTrue("ListTree Path bin", len(bin) == 2 && bin[0].Path == "bin/run" && bin[0].Mode == "100755" && bin[1].Path == "bin/tool" && bin[1].Mode == "100755", bin)
	every := []string{"assets", "bin", "docs", "pkg", "src", "README.md", "assets/logo.bin", "bin/run", "bin/tool", "docs/NOTES.md", "pkg/doc.go", "src/main.go"}
	opt := &gitlab.ListTreeOptions{Recursive: gitlab.Bool(true), ListOptions: gitlab.ListOptions{PerPage: 5, Page: 1}}
	var paged []*gitlab.TreeNode
	for {
		page, resp, err := repositories.ListTree(project.ID, opt)
		must("Repositories.ListTree Recursive", err)
		check("ListTree Recursive TotalItems", resp.TotalItems, len(every))
		paged = append(paged, page...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	check("ListTree Recursive across 3 pages", treePaths(paged), every)
	older, _, err := repositories.ListTree(project.ID, &gitlab.ListTreeOptions{Ref: gitlab.String(before.ID)})
	must("Repositories.ListTree at an older commit", err)
	check("ListTree at an older commit", treePaths(older), []string{"assets", "bin", "README.md"})
	_, _, err = repositories.ListTree(project.ID, &gitlab.ListTreeOptions{Ref: gitlab.String("go-nowhere")})
	expectError("ListTree of a missing ref", err, 404, "{message: 404 Tree Not Found}")

	// Blob (the JSON answer, as bytes) and RawBlobContent, by the IDs the tree gives.
	blob, _, err := repositories.Blob(project.ID, gitBlobID(readme))
	must("Repositories.Blob", err)
	var shown struct {
		Size     int    `json:"size"`
		Encoding string `json:"encoding"`
		Content  string `json:"content"`
		SHA      string `json:"sha"`
	}
	must("decoding the Blob answer", json.Unmarshal(blob, &shown))
	content, err := base64.StdEncoding.DecodeString(shown.Content)
	must("decoding the Blob content", err)
	check("Blob", [4]interface{}{shown.Size, shown.Encoding, string(content), shown.SHA}, [4]interface{}{len(readme), "base64", string(readme), gitBlobID(readme)})
	assets, _, err := repositories.ListTree(project.ID, &gitlab.ListTreeOptions{Path: gitlab.String("assets")})
	must("Repositories.ListTree Path assets", err)
	raw, _, err := repositories.RawBlobContent(project.ID, assets[0].ID)
	must("Repositories.RawBlobContent", err)
	check("RawBlobContent of a binary file", raw, f.fileContent("assets/logo.bin", "main"))
	_, _, err = repositories.Blob(project.ID, strings.Repeat("0", 40))
	expectError("Blob of a missing blob", err, 404, "{message: 404 Blob Not Found}")

	// Compare: the commits from the merge base to To, oldest first, and their changes.
	compared, _, err := repositories.Compare(project.ID, &gitlab.CompareOptions{From: gitlab.String(before.ID), To: gitlab.String("main")})
	must("Repositories.Compare", err)
	check("Compare Commits (oldest first)", commitIDs(compared.Commits), []string{laid.ID, changed.ID, renamed.ID})
	check("Compare Commit (the newest)", compared.Commit.ID, renamed.ID)
	var changedPaths []string
	for _, diff := range compared.Diffs {
		changedPaths = append(changedPaths, diff.NewPath)
	}
	sort.Strings(changedPaths)
	check("Compare Diffs", changedPaths, []string{"bin/run", "docs/NOTES.md", "pkg/doc.go", "src/main.go"})
	check("Compare CompareTimeout, CompareSameRef", [2]bool{compared.CompareTimeout, compared.CompareSameRef}, [2]bool{false, false})
	compared, _, err = repositories.Compare(project.ID, &gitlab.CompareOptions{From: gitlab.String("main"), To: gitlab.String("go-pick")})
	must("Repositories.Compare to a branch made before", err)
	check("Compare from main to a branch made before it", commitIDs(compared.Commits), []string{picked.ID})
	compared, _, err = repositories.Compare(project.ID, &gitlab.CompareOptions{From: gitlab.String("main"), To: gitlab.String("go-pick"), Straight: gitlab.Bool(true)})
	must("Repositories.Compare Straight", err)
	check("Compare Straight: the commits are the same", commitIDs(compared.Commits), []string{picked.ID})
	// Straight: main's tree against the branch's, so main's later changes show as undone.
	undone := map[string]gitlab.Diff{}
	for _, diff := range compared.Diffs {
		undone[diff.NewPath] = *diff
	}
	check("Compare Straight: a file main deleted", undone["tmp/scratch.txt"].NewFile, true)
	check("Compare Straight: a file main renamed", undone["docs/NOTES.md"].DeletedFile, true)
	check("Compare Straight: a file main changed", undone["src/main.go"].Diff, "@@ -1,3 +1 @@\n package main\n-\n-func main() {}\n")
	compared, _, err = repositories.Compare(project.ID, &gitlab.CompareOptions{From: gitlab.String("main"), To: gitlab.String("main")})
	must("Repositories.Compare of a ref with itself", err)
	check("Compare of a ref with itself", [4]interface{}{len(compared.Commits), compared.Commit, len(compared.Diffs), compared.CompareSameRef}, [4]interface{}{0, (*gitlab.Commit)(nil), 0, true})

	// Archive: the files under "<project>-<ref>-<sha>/", as zip and as tar.gz.
	head := f.headOf("main").ID
	data, _, err := repositories.Archive(project.ID, &gitlab.ArchiveOptions{Format: gitlab.String("zip"), SHA: gitlab.String("main")})
	must("Repositories.Archive zip", err)
	files := archiveFiles("Archive zip", data, true)
	prefix := "go-repo-main-" + head + "/"
	var names []string
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var wantNames []string
	for _, path := range every[5:] {
		wantNames = append(wantNames, prefix+path)
	}
	check("Archive zip: files", names, wantNames)
	check("Archive zip: README.md", files[prefix+"README.md"], readme)
	data, _, err = repositories.Archive(project.ID, &gitlab.ArchiveOptions{Format: gitlab.String("tar.gz"), SHA: gitlab.String(before.ID)})
	must("Repositories.Archive tar.gz", err)
	files = archiveFiles("Archive tar.gz", data, false)
	prefix = "go-repo-" + before.ID + "-" + before.ID + "/"
	check("Archive tar.gz at a commit: files", len(files), 3)
	check("Archive tar.gz at a commit: bin/tool", files[prefix+"bin/tool"], []byte("#!/bin/sh\necho tool\n"))
	_, _, err = repositories.Archive(project.ID, &gitlab.ArchiveOptions{SHA: gitlab.String("go-nowhere")})
	expectError("Archive of a missing ref", err, 404, "{message: 404 File Not Found}")

	// Contributors: the default branch's authors by e-mail (merges left out), by commits ascending.
	history, _, err := commits.ListCommits(project.ID, &gitlab.ListCommitsOptions{RefName: gitlab.String("main"), ListOptions: gitlab.ListOptions{PerPage: 100}})
	must("Commits.ListCommits main", err)
	authorCommits, authorNames := map[string]int{}, map[string]string{}
	for _, commit := range history {
		if len(commit.ParentIDs) > 1 {
			continue
		}
		// Newest first: an author is named as in its newest commit.
		if _, seen := authorNames[commit.AuthorEmail]; !seen {
			authorNames[commit.AuthorEmail] = commit.AuthorName
		}
		authorCommits[commit.AuthorEmail]++
	}
	contributors, _, err := repositories.Contributors(project.ID, &gitlab.ListContributorsOptions{})
	must("Repositories.Contributors", err)
	gotCommits, gotNames, counts, changes := map[string]int{}, map[string]string{}, []int{}, 0
	for _, contributor := range contributors {
		gotCommits[contributor.Email], gotNames[contributor.Email] = contributor.Commits, contributor.Name
		counts = append(counts, contributor.Commits)
		changes += contributor.Additions + contributor.Deletions
	}
	check("Contributors: commits by e-mail", gotCommits, authorCommits)
	check("Contributors: names", gotNames, authorNames)
	check("Contributors: by commits ascending, no additions or deletions", [2]interface{}{sort.IntsAreSorted(counts), changes}, [2]interface{}{true, 0})
	byEmail, _, err := repositories.Contributors(project.ID, &gitlab.ListContributorsOptions{OrderBy: gitlab.String("email"), Sort: gitlab.String("desc")})
	must("Repositories.Contributors by e-mail", err)
	emails := []string{}
	for _, contributor := range byEmail {
		emails = append(emails, strings.ToLower(contributor.Email))
	}
	check("Contributors(order_by=email, sort=desc)", sort.IsSorted(sort.Reverse(sort.StringSlice(emails))) && len(emails) == len(authorCommits), true)
	return "commit diff (update, new, deleted, mode, rename, pages), cherry-pick, tree (recursive, pages), blobs, compare (straight), archives, contributors"
}

func issueIIDs(issues []*gitlab.Issue) []int {
	iids := []int{}
	for _, issue := range issues {
		iids = append(iids, issue.IID)
	}
	return iids
}

func (f *flows) issues() string {
	issues, notes, awards := f.root.Issues, f.root.Notes, f.root.AwardEmoji
	project, _, err := f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("go-issues"), Visibility: gitlab.Visibility(gitlab.PrivateVisibility)})
	must("CreateProject go-issues", err)
	target, _, err := f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("go-issues-target"), Visibility: gitlab.Visibility(gitlab.PrivateVisibility)})
	must("CreateProject go-issues-target", err)
	due := gitlab.ISOTime(time.Date(2030, 1, 31, 0, 0, 0, 0, time.UTC))
	issue, resp, err := issues.CreateIssue(project.ID, &gitlab.CreateIssueOptions{
		Title: gitlab.String("Crash"), Description: gitlab.String("It crashes"), Labels: &gitlab.Labels{"bug", "ui"}, DueDate: &due,
	})
	must("Issues.CreateIssue", err)
	checkStatus("CreateIssue", resp, 201)
	check("CreateIssue", []interface{}{issue.IID, issue.State, []string(issue.Labels), issue.DueDate.String(), issue.Subscribed, issue.Author.Username},
		[]interface{}{1, "opened", []string{"bug", "ui"}, "2030-01-31", true, "root"})
	checkTrue("CreateIssue CreatedAt", issue.CreatedAt != nil && !issue.CreatedAt.IsZero())
	checkTrue("CreateIssue Links", issue.Links != nil && issue.Links.Self != "", issue.Links)
	second, _, err := issues.CreateIssue(project.ID, &gitlab.CreateIssueOptions{Title: gitlab.String("Feature"), Confidential: gitlab.Bool(true)})
	must("Issues.CreateIssue second", err)
	check("CreateIssue the next iid", second.IID, 2)
	listed, _, err := issues.ListProjectIssues(project.ID, &gitlab.ListProjectIssuesOptions{State: gitlab.String("opened")})
	must("Issues.ListProjectIssues", err)
	check("ListProjectIssues State opened", issueIIDs(listed), []int{2, 1})
	labelled, _, err := issues.ListProjectIssues(project.ID, &gitlab.ListProjectIssuesOptions{Labels: &gitlab.Labels{"bug", "ui"}})
	must("Issues.ListProjectIssues Labels", err)
	check("ListProjectIssues Labels", issueIIDs(labelled), []int{1})
	byIID, _, err := issues.ListProjectIssues(project.ID, &gitlab.ListProjectIssuesOptions{IIDs: &[]int{2}})
	must("Issues.ListProjectIssues IIDs", err)
	check("ListProjectIssues IIDs", issueIIDs(byIID), []int{2})
	unassigned, _, err := issues.ListProjectIssues(project.ID, &gitlab.ListProjectIssuesOptions{AssigneeID: gitlab.AssigneeID(gitlab.UserIDNone)})
	must("Issues.ListProjectIssues AssigneeID None", err)
	check("ListProjectIssues AssigneeID None", issueIIDs(unassigned), []int{2, 1})
	updated, _, err := issues.UpdateIssue(project.ID, 1, &gitlab.UpdateIssueOptions{StateEvent: gitlab.String("close"), AddLabels: &gitlab.Labels{"triaged"}})
	must("Issues.UpdateIssue close", err)
	check("UpdateIssue close", []interface{}{updated.State, []string(updated.Labels), updated.ClosedBy.Username}, []interface{}{"closed", []string{"bug", "triaged", "ui"}, "root"})
	checkTrue("UpdateIssue ClosedAt", updated.ClosedAt != nil)
	got, _, err := issues.GetIssue(project.ID, 1)
	must("Issues.GetIssue", err)
	check("GetIssue State", got.State, "closed")
	note, _, err := notes.CreateIssueNote(project.ID, 1, &gitlab.CreateIssueNoteOptions{Body: gitlab.String("From go")})
	must("Notes.CreateIssueNote", err)
	check("CreateIssueNote", []interface{}{note.Body, note.System, note.NoteableIID, note.NoteableType}, []interface{}{"From go", false, 1, "Issue"})
	note, _, err = notes.UpdateIssueNote(project.ID, 1, note.ID, &gitlab.UpdateIssueNoteOptions{Body: gitlab.String("Edited from go")})
	must("Notes.UpdateIssueNote", err)
	check("UpdateIssueNote", note.Body, "Edited from go")
	all, _, err := notes.ListIssueNotes(project.ID, 1, &gitlab.ListIssueNotesOptions{Sort: gitlab.String("asc")})
	must("Notes.ListIssueNotes", err)
	var bodies []string
	for _, item := range all {
		bodies = append(bodies, item.Body)
	}
	checkTrue("ListIssueNotes has the comment and the system notes", len(bodies) >= 3 && bodies[len(bodies)-1] == "Edited from go", bodies)
	award, resp, err := awards.CreateIssueAwardEmoji(project.ID, 1, &gitlab.CreateAwardEmojiOptions{Name: "rocket"})
	must("AwardEmoji.CreateIssueAwardEmoji", err)
	checkStatus("CreateIssueAwardEmoji", resp, 201)
	check("CreateIssueAwardEmoji", []interface{}{award.Name, award.User.Username, award.AwardableType}, []interface{}{"rocket", "root", "Issue"})
	_, _, err = awards.CreateIssueAwardEmoji(project.ID, 1, &gitlab.CreateAwardEmojiOptions{Name: "rocket"})
	checkTrue("CreateIssueAwardEmoji twice fails", err != nil)
	onNote, _, err := awards.CreateIssuesAwardEmojiOnNote(project.ID, 1, note.ID, &gitlab.CreateAwardEmojiOptions{Name: "tada"})
	must("AwardEmoji.CreateIssuesAwardEmojiOnNote", err)
	check("CreateIssuesAwardEmojiOnNote AwardableType", onNote.AwardableType, "Note")
	_, err = awards.DeleteIssueAwardEmoji(project.ID, 1, award.ID)
	must("AwardEmoji.DeleteIssueAwardEmoji", err)
	left, _, err := awards.ListIssueAwardEmoji(project.ID, 1, &gitlab.ListAwardEmojiOptions{})
	must("AwardEmoji.ListIssueAwardEmoji", err)
	check("ListIssueAwardEmoji after the delete", len(left), 0)
	stats, _, err := issues.SetTimeEstimate(project.ID, 1, &gitlab.SetTimeEstimateOptions{Duration: gitlab.String("1w 2d")})
	must("Issues.SetTimeEstimate", err)
	check("SetTimeEstimate", []interface{}{stats.TimeEstimate, stats.HumanTimeEstimate}, []interface{}{7 * 8 * 3600, "1w 2d"})
	stats, _, err = issues.AddSpentTime(project.ID, 1, &gitlab.AddSpentTimeOptions{Duration: gitlab.String("90m")})
	must("Issues.AddSpentTime", err)
	check("AddSpentTime", []interface{}{stats.TotalTimeSpent, stats.HumanTotalTimeSpent}, []interface{}{5400, "1h 30m"})
	stats, _, err = issues.GetTimeSpent(project.ID, 1)
	must("Issues.GetTimeSpent", err)
	check("GetTimeSpent", stats.TotalTimeSpent, 5400)
	_, _, err = issues.ResetSpentTime(project.ID, 1)
	must("Issues.ResetSpentTime", err)
	stats, _, err = issues.ResetTimeEstimate(project.ID, 1)
	must("Issues.ResetTimeEstimate", err)
	check("ResetTimeEstimate", []interface{}{stats.TimeEstimate, stats.TotalTimeSpent}, []interface{}{0, 0})
	// Its author hears of it until it unsubscribes.
	unsubscribed, _, err := issues.UnsubscribeFromIssue(project.ID, 2)
	must("Issues.UnsubscribeFromIssue", err)
	check("UnsubscribeFromIssue", unsubscribed.Subscribed, false)
	subscribed, _, err := issues.SubscribeToIssue(project.ID, 2)
	must("Issues.SubscribeToIssue", err)
	check("SubscribeToIssue", subscribed.Subscribed, true)
	_, resp, _ = issues.SubscribeToIssue(project.ID, 2)
	check("SubscribeToIssue twice: 304", resp.StatusCode, 304)
	moved, _, err := issues.MoveIssue(project.ID, 1, &gitlab.MoveIssueOptions{ToProjectID: gitlab.Int(target.ID)})
	must("Issues.MoveIssue", err)
	check("MoveIssue", []interface{}{moved.ProjectID, moved.IID, moved.Title}, []interface{}{target.ID, 1, "Crash"})
	_, _, err = issues.MoveIssue(project.ID, 2, &gitlab.MoveIssueOptions{ToProjectID: gitlab.Int(project.ID)})
	expectError("MoveIssue to its own project", err, 400, "{message: Cannot move issue to project it originates from!}")
	resp, err = issues.DeleteIssue(project.ID, 2)
	must("Issues.DeleteIssue", err)
	checkStatus("DeleteIssue", resp, 204)
	_, _, err = issues.GetIssue(project.ID, 2)
	expectError("GetIssue of a deleted issue", err, 404, "{message: 404 Issue Not Found}")
	mine, _, err := issues.ListIssues(&gitlab.ListIssuesOptions{Scope: gitlab.String("all"), Search: gitlab.String("Crash")})
	must("Issues.ListIssues", err)
	checkTrue("ListIssues finds the moved issue", len(mine) >= 1)
	return "create, list filters, close, notes, award emoji, time tracking, subscriptions, move, delete"
}

func (f *flows) planning() string {
	group, _, err := f.root.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.String("go-planning"), Path: gitlab.String("go-planning"), Visibility: gitlab.Visibility(gitlab.PrivateVisibility)})
	must("CreateGroup go-planning", err)
	project, _, err := f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("go-planning"), NamespaceID: gitlab.Int(group.ID), Visibility: gitlab.Visibility(gitlab.PrivateVisibility)})
	must("CreateProject go-planning", err)
	labels, milestones, groupMilestones := f.root.Labels, f.root.Milestones, f.root.GroupMilestones

	label, resp, err := labels.CreateLabel(project.ID, &gitlab.CreateLabelOptions{Name: gitlab.String("go/web"), Color: gitlab.String("navy"), Description: gitlab.String("Web"), Priority: gitlab.Int(2)})
	must("Labels.CreateLabel", err)
	checkStatus("CreateLabel", resp, 201)
	check("CreateLabel", []interface{}{label.Name, label.Color, label.TextColor, label.Priority, label.IsProjectLabel}, []interface{}{"go/web", "#000080", "#FFFFFF", 2, true})
	_, _, err = labels.CreateLabel(project.ID, &gitlab.CreateLabelOptions{Name: gitlab.String("go/web"), Color: gitlab.String("#000")})
	expectError("CreateLabel with a taken name", err, 409, "{message: Label already exists}")
	got, _, err := labels.GetLabel(project.ID, "go/web")
	must("Labels.GetLabel", err)
	check("GetLabel by name", got.ID, label.ID)
	// go-gitlab 0.73 names the label in the body, as the specification's era does.
	updated, _, err := labels.UpdateLabel(project.ID, &gitlab.UpdateLabelOptions{Name: gitlab.String("go/web"), NewName: gitlab.String("go/ui"), Color: gitlab.String("#ABC")})
	must("Labels.UpdateLabel", err)
	check("UpdateLabel", []string{updated.Name, updated.Color}, []string{"go/ui", "#ABC"})
	_, _, err = labels.UpdateLabel(project.ID, &gitlab.UpdateLabelOptions{Name: gitlab.String("go/none"), Color: gitlab.String("#000")})
	expectError("UpdateLabel of a missing label", err, 404, "{message: 404 Label not found Not Found}")
	subscribed, resp, err := labels.SubscribeToLabel(project.ID, label.ID)
	must("Labels.SubscribeToLabel", err)
	checkStatus("SubscribeToLabel", resp, 201)
	check("SubscribeToLabel Subscribed", subscribed.Subscribed, true)
	_, resp, _ = labels.SubscribeToLabel(project.ID, "go/ui")
	check("SubscribeToLabel twice: 304", resp.StatusCode, 304)
	resp, err = labels.UnsubscribeFromLabel(project.ID, label.ID)
	must("Labels.UnsubscribeFromLabel", err)
	checkStatus("UnsubscribeFromLabel", resp, 201)
	_, _, err = f.root.Issues.CreateIssue(project.ID, &gitlab.CreateIssueOptions{Title: gitlab.String("Styled"), Labels: &gitlab.Labels{"go/ui"}})
	must("Issues.CreateIssue with a label", err)
	listed, _, err := labels.ListLabels(project.ID, &gitlab.ListLabelsOptions{WithCounts: gitlab.Bool(true), Search: gitlab.String("ui")})
	must("Labels.ListLabels", err)
	check("ListLabels", len(listed), 1)
	check("ListLabels counts", []interface{}{listed[0].Name, listed[0].OpenIssuesCount, listed[0].Subscribed}, []interface{}{"go/ui", 1, false})
	resp, err = labels.DeleteLabel(project.ID, &gitlab.DeleteLabelOptions{Name: gitlab.String("go/ui")})
	must("Labels.DeleteLabel", err)
	checkStatus("DeleteLabel", resp, 204)
	_, _, err = labels.GetLabel(project.ID, label.ID)
	expectError("GetLabel of a deleted label", err, 404, "{message: 404 Label Not Found}")

	start, due := gitlab.ISOTime(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)), gitlab.ISOTime(time.Date(2030, 6, 30, 0, 0, 0, 0, time.UTC))
	milestone, resp, err := milestones.CreateMilestone(project.ID, &gitlab.CreateMilestoneOptions{Title: gitlab.String("v1.0"), StartDate: &start, DueDate: &due})
	must("Milestones.CreateMilestone", err)
	checkStatus("CreateMilestone", resp, 201)
	check("CreateMilestone", []interface{}{milestone.IID, milestone.ProjectID, milestone.Title, milestone.State, milestone.DueDate.String()},
		[]interface{}{1, project.ID, "v1.0", "active", "2030-06-30"})
	_, _, err = milestones.CreateMilestone(project.ID, &gitlab.CreateMilestoneOptions{Title: gitlab.String("v1.0")})
	expectError("CreateMilestone with a taken title", err, 400, "")
	issue, _, err := f.root.Issues.CreateIssue(project.ID, &gitlab.CreateIssueOptions{Title: gitlab.String("Planned"), MilestoneID: gitlab.Int(milestone.ID)})
	must("Issues.CreateIssue with a milestone", err)
	check("CreateIssue Milestone", issue.Milestone.ID, milestone.ID)
	planned, _, err := milestones.GetMilestoneIssues(project.ID, milestone.ID, nil)
	must("Milestones.GetMilestoneIssues", err)
	check("GetMilestoneIssues", issueIIDs(planned), []int{issue.IID})
	closed, _, err := milestones.UpdateMilestone(project.ID, milestone.ID, &gitlab.UpdateMilestoneOptions{StateEvent: gitlab.String("close"), Description: gitlab.String("Done")})
	must("Milestones.UpdateMilestone", err)
	check("UpdateMilestone", []string{closed.State, closed.Description}, []string{"closed", "Done"})
	closedList, _, err := milestones.ListMilestones(project.ID, &gitlab.ListMilestonesOptions{State: gitlab.String("closed"), IIDs: &[]int{1}})
	must("Milestones.ListMilestones", err)
	check("ListMilestones State closed, IIDs", len(closedList), 1)
	resp, err = milestones.DeleteMilestone(project.ID, milestone.ID)
	must("Milestones.DeleteMilestone", err)
	checkStatus("DeleteMilestone", resp, 204)
	_, _, err = milestones.GetMilestone(project.ID, milestone.ID)
	expectError("GetMilestone of a deleted milestone", err, 404, "{message: 404 Not found}")

	quarter, _, err := groupMilestones.CreateGroupMilestone(group.ID, &gitlab.CreateGroupMilestoneOptions{Title: gitlab.String("Q1"), DueDate: &due})
	must("GroupMilestones.CreateGroupMilestone", err)
	check("CreateGroupMilestone", []interface{}{quarter.IID, quarter.GroupID, quarter.Title}, []interface{}{1, group.ID, "Q1"})
	quarterly, _, err := f.root.Issues.CreateIssue(project.ID, &gitlab.CreateIssueOptions{Title: gitlab.String("Quarterly"), MilestoneID: gitlab.Int(quarter.ID)})
	must("Issues.CreateIssue with a group milestone", err)
	check("CreateIssue group Milestone", quarterly.Milestone.ID, quarter.ID)
	inQuarter, _, err := groupMilestones.GetGroupMilestoneIssues(group.ID, quarter.ID, nil)
	must("GroupMilestones.GetGroupMilestoneIssues", err)
	check("GetGroupMilestoneIssues", issueIIDs(inQuarter), []int{quarterly.IID})
	renamed, _, err := groupMilestones.UpdateGroupMilestone(group.ID, quarter.ID, &gitlab.UpdateGroupMilestoneOptions{Title: gitlab.String("Q1 2030")})
	must("GroupMilestones.UpdateGroupMilestone", err)
	check("UpdateGroupMilestone", renamed.Title, "Q1 2030")
	all, _, err := groupMilestones.ListGroupMilestones(group.ID, &gitlab.ListGroupMilestonesOptions{Search: gitlab.String("2030")})
	must("GroupMilestones.ListGroupMilestones", err)
	check("ListGroupMilestones Search", len(all), 1)
	return "labels (create, get, update and delete by name, subscriptions, counts), project and group milestones, their issues"
}

// --- merge requests ("go-mr": master, protected for maintainers by default, and branches of a developer) ---------

func mergeRequestIIDs(requests []*gitlab.MergeRequest) []int {
	iids := []int{}
	for _, request := range requests {
		iids = append(iids, request.IID)
	}
	return iids
}

// commitOn commits one file action on a branch (made from startBranch when given) through client.
func commitOn(client *gitlab.Client, pid int, branch, startBranch, message string, action gitlab.FileActionValue, path, content string) *gitlab.Commit {
	opt := &gitlab.CreateCommitOptions{
		Branch: gitlab.String(branch), CommitMessage: gitlab.String(message),
		Actions: []*gitlab.CommitActionOptions{{Action: gitlab.FileAction(action), FilePath: gitlab.String(path), Content: gitlab.String(content)}},
	}
	if startBranch != "" {
		opt.StartBranch = gitlab.String(startBranch)
	}
	commit, _, err := client.Commits.CreateCommit(pid, opt)
	must("Commits.CreateCommit "+message, err)
	return commit
}

func (f *flows) mergeRequests() string {
	project, _, err := f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("go-mr"), Visibility: gitlab.Visibility(gitlab.PrivateVisibility)})
	must("CreateProject go-mr", err)
	f.mrProject = project
	dev, _, err := f.newUser("go-mr-dev")
	must("Users.CreateUser go-mr-dev", err)
	reporter, _, err := f.newUser("go-mr-reporter")
	must("Users.CreateUser go-mr-reporter", err)
	for _, member := range []struct {
		user  *gitlab.User
		level gitlab.AccessLevelValue
	}{{dev, gitlab.DeveloperPermissions}, {reporter, gitlab.ReporterPermissions}} {
		_, _, err = f.root.ProjectMembers.AddProjectMember(project.ID, &gitlab.AddProjectMemberOptions{UserID: member.user.ID, AccessLevel: gitlab.AccessLevel(member.level)})
		must("ProjectMembers.AddProjectMember", err)
	}
	asDev, asReporter := f.asUser(dev, "go-mr-dev"), f.asUser(reporter, "go-mr-reporter")
	mrs := f.root.MergeRequests
	_, _, err = f.root.RepositoryFiles.CreateFile(project.ID, "README.md", &gitlab.CreateFileOptions{
		Branch: gitlab.String("master"), Content: gitlab.String("one\ntwo\nthree\n"), CommitMessage: gitlab.String("Initial commit"),
	})
	must("RepositoryFiles.CreateFile", err)
	headOf := func(ref string) string {
		commit, _, err := f.root.Commits.GetCommit(project.ID, ref)
		must("Commits.GetCommit "+ref, err)
		return commit.ID
	}
	start := headOf("master")
	issue, _, err := f.root.Issues.CreateIssue(project.ID, &gitlab.CreateIssueOptions{Title: gitlab.String("To close")})
	must("Issues.CreateIssue", err)
	first := commitOn(asDev, project.ID, "go-feature", "master", "Add the feature", gitlab.FileCreate, "feature.txt", "feature\n")
	head := commitOn(asDev, project.ID, "go-feature", "", "Change the readme", gitlab.FileUpdate, "README.md", "one\n2\nthree\n")
	commitOn(asDev, project.ID, "go-draft", "master", "Draft work", gitlab.FileCreate, "draft.txt", "draft\n")
	commitOn(asDev, project.ID, "go-conflict", "master", "Another readme", gitlab.FileUpdate, "README.md", "one\ndeux\nthree\n")

	description := fmt.Sprintf("It adds a feature.\n\nCloses #%d", issue.IID)
	mr, resp, err := asDev.MergeRequests.CreateMergeRequest(project.ID, &gitlab.CreateMergeRequestOptions{
		Title: gitlab.String("Add a feature"), Description: gitlab.String(description), SourceBranch: gitlab.String("go-feature"),
		TargetBranch: gitlab.String("master"), Labels: &gitlab.Labels{"feature", "ui"}, AssigneeID: gitlab.Int(reporter.ID),
	})
	must("MergeRequests.CreateMergeRequest", err)
	checkStatus("CreateMergeRequest", resp, 201)
	check("CreateMergeRequest", []interface{}{mr.IID, mr.ProjectID, mr.SourceProjectID, mr.TargetProjectID, mr.Title, mr.Description, mr.State,
		mr.SourceBranch, mr.TargetBranch, []string(mr.Labels), mr.Author.Username, mr.Assignee.Username, len(mr.Assignees), mr.SHA, mr.MergeCommitSHA,
		mr.WorkInProgress, mr.Draft, mr.MergeWhenPipelineSucceeds, mr.Subscribed, mr.UserNotesCount},
		[]interface{}{1, project.ID, project.ID, project.ID, "Add a feature", description, "opened", "go-feature", "master", []string{"feature", "ui"},
			"go-mr-dev", "go-mr-reporter", 1, head.ID, "", false, false, false, true, 0})
	checkTrue("CreateMergeRequest CreatedAt", mr.CreatedAt != nil && !mr.CreatedAt.IsZero())
	check("CreateMergeRequest WebURL", mr.WebURL, f.url+"/root/go-mr/merge_requests/1")
	draft, _, err := asDev.MergeRequests.CreateMergeRequest(project.ID, &gitlab.CreateMergeRequestOptions{
		Title: gitlab.String("WIP: Second"), SourceBranch: gitlab.String("go-draft"), TargetBranch: gitlab.String("master"),
	})
	must("MergeRequests.CreateMergeRequest draft", err)
	check("CreateMergeRequest the next iid, a draft", []interface{}{draft.IID, draft.WorkInProgress, draft.Draft, draft.Assignee == nil}, []interface{}{2, true, true, true})
	_, _, err = asDev.MergeRequests.CreateMergeRequest(project.ID, &gitlab.CreateMergeRequestOptions{
		Title: gitlab.String("Again"), SourceBranch: gitlab.String("go-feature"), TargetBranch: gitlab.String("master"),
	})
	expectError("CreateMergeRequest of the same branches again", err, 409, "{message: Another open merge request already exists for this source branch: !1}")
	_, _, err = asDev.MergeRequests.CreateMergeRequest(project.ID, &gitlab.CreateMergeRequestOptions{
		Title: gitlab.String("Same"), SourceBranch: gitlab.String("master"), TargetBranch: gitlab.String("master"),
	})
	expectError("CreateMergeRequest from a branch into itself", err, 400, "{message: {validate_branches: [You can't use same project/branch for source and target]}}")
	_, _, err = asReporter.MergeRequests.CreateMergeRequest(project.ID, &gitlab.CreateMergeRequestOptions{
		Title: gitlab.String("No"), SourceBranch: gitlab.String("go-draft"), TargetBranch: gitlab.String("master"),
	})
	expectError("CreateMergeRequest by a reporter", err, 403, "{message: 403 Forbidden}")

	list := func(what string, client *gitlab.Client, opt *gitlab.ListProjectMergeRequestsOptions) []*gitlab.MergeRequest {
		listed, _, err := client.MergeRequests.ListProjectMergeRequests(project.ID, opt)
		must("MergeRequests.ListProjectMergeRequests "+what, err)
		return listed
	}
	check("ListProjectMergeRequests", mergeRequestIIDs(list("", f.root, &gitlab.ListProjectMergeRequestsOptions{})), []int{2, 1})
	check("ListProjectMergeRequests State opened", mergeRequestIIDs(list("State", f.root, &gitlab.ListProjectMergeRequestsOptions{State: gitlab.String("opened")})), []int{2, 1})
	check("ListProjectMergeRequests State merged", mergeRequestIIDs(list("State", f.root, &gitlab.ListProjectMergeRequestsOptions{State: gitlab.String("merged")})), []int{})
	check("ListProjectMergeRequests Labels", mergeRequestIIDs(list("Labels", f.root, &gitlab.ListProjectMergeRequestsOptions{Labels: &gitlab.Labels{"feature", "ui"}})), []int{1})
	check("ListProjectMergeRequests Search", mergeRequestIIDs(list("Search", f.root, &gitlab.ListProjectMergeRequestsOptions{Search: gitlab.String("second")})), []int{2})
	check("ListProjectMergeRequests WIP", mergeRequestIIDs(list("WIP", f.root, &gitlab.ListProjectMergeRequestsOptions{WIP: gitlab.String("no")})), []int{1})
	check("ListProjectMergeRequests IIDs", mergeRequestIIDs(list("IIDs", f.root, &gitlab.ListProjectMergeRequestsOptions{IIDs: &[]int{2}})), []int{2})
	check("ListProjectMergeRequests AssigneeID", mergeRequestIIDs(list("AssigneeID", f.root, &gitlab.ListProjectMergeRequestsOptions{AssigneeID: gitlab.AssigneeID(reporter.ID)})), []int{1})
	check("ListProjectMergeRequests AssigneeID None", mergeRequestIIDs(list("AssigneeID None", f.root, &gitlab.ListProjectMergeRequestsOptions{AssigneeID: gitlab.AssigneeID(gitlab.UserIDNone)})), []int{2})
	check("ListProjectMergeRequests AuthorID, Sort asc", mergeRequestIIDs(list("AuthorID", f.root, &gitlab.ListProjectMergeRequestsOptions{AuthorID: gitlab.Int(dev.ID), Sort: gitlab.String("asc")})), []int{1, 2})
	check("ListProjectMergeRequests Scope assigned_to_me, as the assignee",
		mergeRequestIIDs(list("Scope", asReporter, &gitlab.ListProjectMergeRequestsOptions{Scope: gitlab.String("assigned_to_me")})), []int{1})
	simple := list("View simple", f.root, &gitlab.ListProjectMergeRequestsOptions{View: gitlab.String("simple"), Labels: &gitlab.Labels{"ui"}})
	check("ListProjectMergeRequests View simple", len(simple), 1)
	check("ListProjectMergeRequests View simple: the short form", []interface{}{simple[0].IID, simple[0].Title, simple[0].State, simple[0].WebURL, simple[0].Author == nil, simple[0].SHA, simple[0].SourceBranch},
		[]interface{}{1, "Add a feature", "opened", mr.WebURL, true, "", ""})
	opt := &gitlab.ListProjectMergeRequestsOptions{ListOptions: gitlab.ListOptions{PerPage: 1, Page: 1}}
	var paged []*gitlab.MergeRequest
	for {
		page, resp, err := mrs.ListProjectMergeRequests(project.ID, opt)
		must("MergeRequests.ListProjectMergeRequests pages", err)
		check("ListProjectMergeRequests TotalItems", resp.TotalItems, 2)
		paged = append(paged, page...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	check("ListProjectMergeRequests across 2 pages", mergeRequestIIDs(paged), []int{2, 1})
	mine, _, err := asDev.MergeRequests.ListMergeRequests(&gitlab.ListMergeRequestsOptions{})
	must("MergeRequests.ListMergeRequests as the author", err)
	check("ListMergeRequests as the author (created by it)", mergeRequestIIDs(mine), []int{2, 1})
	assigned, _, err := asReporter.MergeRequests.ListMergeRequests(&gitlab.ListMergeRequestsOptions{Scope: gitlab.String("assigned_to_me")})
	must("MergeRequests.ListMergeRequests Scope assigned_to_me", err)
	check("ListMergeRequests Scope assigned_to_me", mergeRequestIIDs(assigned), []int{1})

	shown, _, err := asReporter.MergeRequests.GetMergeRequest(project.ID, 1, nil)
	must("MergeRequests.GetMergeRequest", err)
	check("GetMergeRequest SHA, MergeStatus, HasConflicts", []interface{}{shown.SHA, shown.MergeStatus, shown.HasConflicts}, []interface{}{head.ID, "can_be_merged", false})
	check("GetMergeRequest DiffRefs", []string{shown.DiffRefs.BaseSha, shown.DiffRefs.HeadSha, shown.DiffRefs.StartSha}, []string{start, head.ID, start})
	// go-gitlab types changes_count as a string, as the original writes it.
	check("GetMergeRequest ChangesCount", shown.ChangesCount, "2")
	check("GetMergeRequest User.CanMerge (a reporter)", shown.User.CanMerge, false)
	check("GetMergeRequest References (short, full)", []string{shown.References.Short, shown.References.Full}, []string{"!1", "root/go-mr!1"})
	commits, _, err := asReporter.MergeRequests.GetMergeRequestCommits(project.ID, 1, nil)
	must("MergeRequests.GetMergeRequestCommits", err)
	var commitTitles []string
	for _, commit := range commits {
		commitTitles = append(commitTitles, commit.ID+" "+commit.Title)
	}
	check("GetMergeRequestCommits (newest first)", commitTitles, []string{head.ID + " Change the readme", first.ID + " Add the feature"})
	changes, _, err := asReporter.MergeRequests.GetMergeRequestChanges(project.ID, 1, nil)
	must("MergeRequests.GetMergeRequestChanges", err)
	var changed []string
	readmeDiff := ""
	for _, change := range changes.Changes {
		changed = append(changed, fmt.Sprintf("%s %v", change.NewPath, change.NewFile))
		if change.NewPath == "README.md" {
			readmeDiff = change.Diff
		}
	}
	sort.Strings(changed)
	check("GetMergeRequestChanges files", changed, []string{"README.md false", "feature.txt true"})
	check("GetMergeRequestChanges README.md diff", readmeDiff, "@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n")
	check("GetMergeRequestChanges ChangesCount, Overflow", []interface{}{changes.ChangesCount, changes.Overflow}, []interface{}{"2", false})
	closes, _, err := asReporter.MergeRequests.GetIssuesClosedOnMerge(project.ID, 1, nil)
	must("MergeRequests.GetIssuesClosedOnMerge", err)
	check("GetIssuesClosedOnMerge", issueIIDs(closes), []int{issue.IID})
	_, _, err = mrs.GetMergeRequest(project.ID, 99, nil)
	expectError("GetMergeRequest of a missing iid", err, 404, "{message: 404 Merge Request Not Found}")

	closed, _, err := mrs.UpdateMergeRequest(project.ID, 1, &gitlab.UpdateMergeRequestOptions{
		Title: gitlab.String("Add a feature, ready"), StateEvent: gitlab.String("close"), AddLabels: &gitlab.Labels{"triaged"},
	})
	must("MergeRequests.UpdateMergeRequest close", err)
	check("UpdateMergeRequest close", []interface{}{closed.State, closed.Title, []string(closed.Labels), closed.ClosedBy.Username},
		[]interface{}{"closed", "Add a feature, ready", []string{"feature", "triaged", "ui"}, "root"})
	checkTrue("UpdateMergeRequest ClosedAt", closed.ClosedAt != nil)
	reopened, _, err := mrs.UpdateMergeRequest(project.ID, 1, &gitlab.UpdateMergeRequestOptions{StateEvent: gitlab.String("reopen"), RemoveLabels: &gitlab.Labels{"triaged"}})
	must("MergeRequests.UpdateMergeRequest reopen", err)
	check("UpdateMergeRequest reopen", []interface{}{reopened.State, reopened.ClosedBy == nil, reopened.ClosedAt == nil, []string(reopened.Labels)},
		[]interface{}{"opened", true, true, []string{"feature", "ui"}})
	_, _, err = asReporter.MergeRequests.UpdateMergeRequest(project.ID, 2, &gitlab.UpdateMergeRequestOptions{Title: gitlab.String("No")})
	expectError("UpdateMergeRequest by a reporter it is not assigned to", err, 403, "{message: 403 Forbidden}")

	// Subscriptions, as its author.
	unsubscribed, _, err := asDev.MergeRequests.UnsubscribeFromMergeRequest(project.ID, 1)
	must("MergeRequests.UnsubscribeFromMergeRequest", err)
	check("UnsubscribeFromMergeRequest", unsubscribed.Subscribed, false)
	_, resp, _ = asDev.MergeRequests.UnsubscribeFromMergeRequest(project.ID, 1)
	check("UnsubscribeFromMergeRequest twice: 304", resp.StatusCode, 304)
	subscribed, resp, err := asDev.MergeRequests.SubscribeToMergeRequest(project.ID, 1)
	must("MergeRequests.SubscribeToMergeRequest", err)
	checkStatus("SubscribeToMergeRequest", resp, 201)
	check("SubscribeToMergeRequest", subscribed.Subscribed, true)
	_, resp, _ = asDev.MergeRequests.SubscribeToMergeRequest(project.ID, 1)
	check("SubscribeToMergeRequest twice: 304", resp.StatusCode, 304)

	// Time tracking.
	stats, _, err := mrs.SetTimeEstimate(project.ID, 1, &gitlab.SetTimeEstimateOptions{Duration: gitlab.String("1d 4h")})
	must("MergeRequests.SetTimeEstimate", err)
	check("SetTimeEstimate", []interface{}{stats.TimeEstimate, stats.HumanTimeEstimate}, []interface{}{12 * 3600, "1d 4h"})
	stats, _, err = mrs.AddSpentTime(project.ID, 1, &gitlab.AddSpentTimeOptions{Duration: gitlab.String("45m")})
	must("MergeRequests.AddSpentTime", err)
	check("AddSpentTime", []interface{}{stats.TotalTimeSpent, stats.HumanTotalTimeSpent}, []interface{}{2700, "45m"})
	stats, _, err = mrs.GetTimeSpent(project.ID, 1)
	must("MergeRequests.GetTimeSpent", err)
	check("GetTimeSpent", []interface{}{stats.TimeEstimate, stats.TotalTimeSpent}, []interface{}{12 * 3600, 2700})
	_, _, err = mrs.ResetSpentTime(project.ID, 1)
	must("MergeRequests.ResetSpentTime", err)
	stats, _, err = mrs.ResetTimeEstimate(project.ID, 1)
	must("MergeRequests.ResetTimeEstimate", err)
	check("ResetTimeEstimate", []interface{}{stats.TimeEstimate, stats.TotalTimeSpent}, []interface{}{0, 0})

	// Award emoji, on the request and on a note; notes.
	awards := f.root.AwardEmoji
	award, resp, err := asReporter.AwardEmoji.CreateMergeRequestAwardEmoji(project.ID, 1, &gitlab.CreateAwardEmojiOptions{Name: "thumbsup"})
	must("AwardEmoji.CreateMergeRequestAwardEmoji", err)
	checkStatus("CreateMergeRequestAwardEmoji", resp, 201)
	check("CreateMergeRequestAwardEmoji", []interface{}{award.Name, award.User.Username, award.AwardableType, award.AwardableID}, []interface{}{"thumbsup", "go-mr-reporter", "MergeRequest", mr.ID})
	upvoted, _, err := mrs.GetMergeRequest(project.ID, 1, nil)
	must("MergeRequests.GetMergeRequest", err)
	check("GetMergeRequest Upvotes", upvoted.Upvotes, 1)
	_, _, err = asDev.AwardEmoji.CreateMergeRequestAwardEmoji(project.ID, 1, &gitlab.CreateAwardEmojiOptions{Name: "thumbsup"})
	expectError("CreateMergeRequestAwardEmoji on one's own request", err, 404, "{message: 404 Award Emoji Not Found}")
	listedAwards, _, err := awards.ListMergeRequestAwardEmoji(project.ID, 1, &gitlab.ListAwardEmojiOptions{})
	must("AwardEmoji.ListMergeRequestAwardEmoji", err)
	checkTrue("ListMergeRequestAwardEmoji", len(listedAwards) == 1 && listedAwards[0].ID == award.ID, listedAwards)
	gotAward, _, err := awards.GetMergeRequestAwardEmoji(project.ID, 1, award.ID)
	must("AwardEmoji.GetMergeRequestAwardEmoji", err)
	check("GetMergeRequestAwardEmoji", gotAward.Name, "thumbsup")
	resp, err = asReporter.AwardEmoji.DeleteMergeRequestAwardEmoji(project.ID, 1, award.ID)
	must("AwardEmoji.DeleteMergeRequestAwardEmoji", err)
	checkStatus("DeleteMergeRequestAwardEmoji", resp, 204)
	listedAwards, _, err = awards.ListMergeRequestAwardEmoji(project.ID, 1, &gitlab.ListAwardEmojiOptions{})
	must("AwardEmoji.ListMergeRequestAwardEmoji", err)
	check("ListMergeRequestAwardEmoji after the delete", len(listedAwards), 0)
	notes := f.root.Notes
	note, resp, err := notes.CreateMergeRequestNote(project.ID, 1, &gitlab.CreateMergeRequestNoteOptions{Body: gitlab.String("Looks right")})
	must("Notes.CreateMergeRequestNote", err)
	checkStatus("CreateMergeRequestNote", resp, 201)
	check("CreateMergeRequestNote", []interface{}{note.Body, note.System, note.Author.Username, note.NoteableType, note.NoteableIID, note.NoteableID},
		[]interface{}{"Looks right", false, "root", "MergeRequest", 1, mr.ID})
	onNote, _, err := asReporter.AwardEmoji.CreateMergeRequestAwardEmojiOnNote(project.ID, 1, note.ID, &gitlab.CreateAwardEmojiOptions{Name: "tada"})
	must("AwardEmoji.CreateMergeRequestAwardEmojiOnNote", err)
	check("CreateMergeRequestAwardEmojiOnNote", []interface{}{onNote.Name, onNote.AwardableType, onNote.AwardableID}, []interface{}{"tada", "Note", note.ID})
	noteAwards, _, err := awards.ListMergeRequestAwardEmojiOnNote(project.ID, 1, note.ID, &gitlab.ListAwardEmojiOptions{})
	must("AwardEmoji.ListMergeRequestAwardEmojiOnNote", err)
	checkTrue("ListMergeRequestAwardEmojiOnNote", len(noteAwards) == 1 && noteAwards[0].Name == "tada", noteAwards)
	resp, err = asReporter.AwardEmoji.DeleteMergeRequestAwardEmojiOnNote(project.ID, 1, note.ID, onNote.ID)
	must("AwardEmoji.DeleteMergeRequestAwardEmojiOnNote", err)
	checkStatus("DeleteMergeRequestAwardEmojiOnNote", resp, 204)
	note, _, err = notes.UpdateMergeRequestNote(project.ID, 1, note.ID, &gitlab.UpdateMergeRequestNoteOptions{Body: gitlab.String("Looks right to me")})
	must("Notes.UpdateMergeRequestNote", err)
	check("UpdateMergeRequestNote", note.Body, "Looks right to me")
	extra, _, err := notes.CreateMergeRequestNote(project.ID, 1, &gitlab.CreateMergeRequestNoteOptions{Body: gitlab.String("Never mind")})
	must("Notes.CreateMergeRequestNote", err)
	resp, err = notes.DeleteMergeRequestNote(project.ID, 1, extra.ID)
	must("Notes.DeleteMergeRequestNote", err)
	checkStatus("DeleteMergeRequestNote", resp, 204)
	_, _, err = notes.GetMergeRequestNote(project.ID, 1, extra.ID)
	expectError("GetMergeRequestNote of a deleted note", err, 404, "{message: 404 Note Not Found}")
	allNotes, _, err := notes.ListMergeRequestNotes(project.ID, 1, &gitlab.ListMergeRequestNotesOptions{Sort: gitlab.String("asc")})
	must("Notes.ListMergeRequestNotes", err)
	var bodies []string
	for _, item := range allNotes {
		bodies = append(bodies, fmt.Sprintf("%v %s", item.System, item.Body))
	}
	// Label notes name the label by its ID, as the original's do.
	triaged, _, err := f.root.Labels.GetLabel(project.ID, "triaged")
	must("Labels.GetLabel", err)
	check("ListMergeRequestNotes (oldest first)", bodies, []string{
		"true changed title from **Add a feature** to **Add a feature{+, ready+}**", "true closed", fmt.Sprintf("true added ~%d label", triaged.ID),
		"true reopened", fmt.Sprintf("true removed ~%d label", triaged.ID), "true changed time estimate to 1d 4h", "true added 45m of time spent",
		"true removed time spent", "true removed time estimate", "false Looks right to me",
	})
	counted, _, err := mrs.GetMergeRequest(project.ID, 1, nil)
	must("MergeRequests.GetMergeRequest", err)
	check("GetMergeRequest UserNotesCount", counted.UserNotesCount, 1)

	// Merge: the owner merges into the protected master; a developer may not.
	_, _, err = asDev.MergeRequests.AcceptMergeRequest(project.ID, 1, &gitlab.AcceptMergeRequestOptions{})
	expectError("AcceptMergeRequest by a developer (master protected)", err, 401, "{message: 401 Unauthorized}")
	_, _, err = mrs.AcceptMergeRequest(project.ID, 1, &gitlab.AcceptMergeRequestOptions{SHA: gitlab.String(start)})
	expectError("AcceptMergeRequest SHA not the head", err, 409, "{message: SHA does not match HEAD of source branch}")
	merged, _, err := mrs.AcceptMergeRequest(project.ID, 1, &gitlab.AcceptMergeRequestOptions{SHA: gitlab.String(head.ID), ShouldRemoveSourceBranch: gitlab.Bool(true)})
	must("MergeRequests.AcceptMergeRequest", err)
	check("AcceptMergeRequest", []interface{}{merged.State, merged.MergedBy.Username, merged.ShouldRemoveSourceBranch, merged.MergedAt != nil},
		[]interface{}{"merged", "root", true, true})
	mergeCommit, _, err := f.root.Commits.GetCommit(project.ID, "master")
	must("Commits.GetCommit master", err)
	check("AcceptMergeRequest MergeCommitSHA", merged.MergeCommitSHA, mergeCommit.ID)
	check("the merge commit", []interface{}{mergeCommit.ParentIDs, strings.TrimSuffix(mergeCommit.Message, "\n")}, []interface{}{[]string{start, head.ID},
		fmt.Sprintf("Merge branch 'go-feature' into 'master'\n\nAdd a feature, ready\n\nCloses #%d\n\nSee merge request root/go-mr!1", issue.IID)})
	_, _, err = f.root.Branches.GetBranch(project.ID, "go-feature")
	expectError("GetBranch of the removed source branch", err, 404, "{message: 404 Branch Not Found}")
	closedIssue, _, err := f.root.Issues.GetIssue(project.ID, issue.IID)
	must("Issues.GetIssue", err)
	check("the issue it closes is closed", closedIssue.State, "closed")
	check("ListProjectMergeRequests State merged", mergeRequestIIDs(list("State", f.root, &gitlab.ListProjectMergeRequestsOptions{State: gitlab.String("merged")})), []int{1})
	_, _, err = mrs.AcceptMergeRequest(project.ID, 1, &gitlab.AcceptMergeRequestOptions{})
	expectError("AcceptMergeRequest twice", err, 406, "{message: Method Not Allowed}")
	_, _, err = mrs.AcceptMergeRequest(project.ID, 2, &gitlab.AcceptMergeRequestOptions{})
	expectError("AcceptMergeRequest of a draft", err, 405, "{message: Branch cannot be merged}")
	conflict, _, err := asDev.MergeRequests.CreateMergeRequest(project.ID, &gitlab.CreateMergeRequestOptions{
		Title: gitlab.String("Another readme"), SourceBranch: gitlab.String("go-conflict"), TargetBranch: gitlab.String("master"),
	})
	must("MergeRequests.CreateMergeRequest conflict", err)
	conflicting, _, err := mrs.GetMergeRequest(project.ID, conflict.IID, nil)
	must("MergeRequests.GetMergeRequest conflict", err)
	check("GetMergeRequest of a conflict: MergeStatus, HasConflicts", []interface{}{conflicting.MergeStatus, conflicting.HasConflicts}, []interface{}{"cannot_be_merged", true})
	_, _, err = mrs.AcceptMergeRequest(project.ID, conflict.IID, &gitlab.AcceptMergeRequestOptions{})
	expectError("AcceptMergeRequest of a conflict", err, 405, "{message: Branch cannot be merged}")
	return "create, 409/400/403, list (state, labels, search, wip, iids, assignee, author, scope, view=simple, pages), get (sha, merge_status, " +
		"diff_refs, changes_count), commits, changes, closes_issues, update close/reopen and labels, subscriptions, time tracking, " +
		"award emoji (request and note), notes, merge (401, 409, removes the branch, closes the issue, 406, 405 draft and conflict)"
}

func (f *flows) mergeRequestFromFork() string {
	upstream, _, err := f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("go-mr-upstream"), Visibility: gitlab.Visibility(gitlab.InternalVisibility)})
	must("CreateProject go-mr-upstream", err)
	_, _, err = f.root.RepositoryFiles.CreateFile(upstream.ID, "README.md", &gitlab.CreateFileOptions{
		Branch: gitlab.String("master"), Content: gitlab.String("Upstream\n"), CommitMessage: gitlab.String("Initial commit"),
	})
	must("RepositoryFiles.CreateFile", err)
	startCommit, _, err := f.root.Commits.GetCommit(upstream.ID, "master")
	must("Commits.GetCommit master", err)
	start := startCommit.ID
	forker, _, err := f.newUser("go-mr-forker")
	must("Users.CreateUser go-mr-forker", err)
	developer, _, err := f.newUser("go-mr-upstream-dev")
	must("Users.CreateUser go-mr-upstream-dev", err)
	_, _, err = f.root.ProjectMembers.AddProjectMember(upstream.ID, &gitlab.AddProjectMemberOptions{UserID: developer.ID, AccessLevel: gitlab.AccessLevel(gitlab.DeveloperPermissions)})
	must("ProjectMembers.AddProjectMember", err)
	asForker, asDeveloper := f.asUser(forker, "go-mr-forker"), f.asUser(developer, "go-mr-upstream-dev")
	fork, resp, err := asForker.Projects.ForkProject(upstream.ID, &gitlab.ForkProjectOptions{})
	must("Projects.ForkProject", err)
	checkStatus("ForkProject", resp, 201)
	check("ForkProject", []interface{}{fork.PathWithNamespace, fork.ForkedFromProject.ID}, []interface{}{"go-mr-forker/go-mr-upstream", upstream.ID})
	// The repository is copied in the background: ImportStatus turns "finished".
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		polled, _, err := asForker.Projects.GetProject(fork.ID, nil)
		must("Projects.GetProject of the fork", err)
		if polled.ImportStatus == "finished" {
			break
		}
		checkTrue("the fork's ImportStatus is finished within 10 s", time.Now().Before(deadline), polled.ImportStatus)
	}
	fix := commitOn(asForker, fork.ID, "go-fix", "master", "A fix from the fork", gitlab.FileCreate, "fix/deep/fix.txt", "fixed\n")
	check("the fix's parent is the upstream's master", fix.ParentIDs, []string{start})
	created, _, err := asForker.MergeRequests.CreateMergeRequest(fork.ID, &gitlab.CreateMergeRequestOptions{
		Title: gitlab.String("A fix"), SourceBranch: gitlab.String("go-fix"), TargetBranch: gitlab.String("master"), TargetProjectID: gitlab.Int(upstream.ID),
	})
	must("MergeRequests.CreateMergeRequest from the fork", err)
	check("CreateMergeRequest from a fork", []interface{}{created.ProjectID, created.SourceProjectID, created.TargetProjectID, created.SHA},
		[]interface{}{upstream.ID, fork.ID, upstream.ID, fix.ID})
	_, _, err = asForker.MergeRequests.CreateMergeRequest(fork.ID, &gitlab.CreateMergeRequestOptions{
		Title: gitlab.String("No"), SourceBranch: gitlab.String("go-fix"), TargetBranch: gitlab.String("master"), TargetProjectID: gitlab.Int(f.mrProject.ID),
	})
	expectError("CreateMergeRequest into a private project the forker does not see", err, 404, "{message: 404 Project Not Found}")
	mr, _, err := asDeveloper.MergeRequests.GetMergeRequest(upstream.ID, created.IID, nil)
	must("MergeRequests.GetMergeRequest from the fork", err)
	check("GetMergeRequest from a fork", []interface{}{mr.MergeStatus, mr.ChangesCount, mr.DiffRefs.BaseSha, mr.DiffRefs.HeadSha, mr.DiffRefs.StartSha},
		[]interface{}{"can_be_merged", "1", start, fix.ID, start})
	commits, _, err := asDeveloper.MergeRequests.GetMergeRequestCommits(upstream.ID, created.IID, nil)
	must("MergeRequests.GetMergeRequestCommits from the fork", err)
	check("GetMergeRequestCommits from a fork", commitIDs(commits), []string{fix.ID})
	_, _, err = asForker.MergeRequests.AcceptMergeRequest(upstream.ID, created.IID, &gitlab.AcceptMergeRequestOptions{})
	expectError("AcceptMergeRequest by the forker", err, 401, "{message: 401 Unauthorized}")
	// master is protected for maintainers by default: unprotected, the upstream's developer merges.
	_, _, err = asDeveloper.MergeRequests.AcceptMergeRequest(upstream.ID, created.IID, &gitlab.AcceptMergeRequestOptions{})
	expectError("AcceptMergeRequest by a developer into the protected master", err, 401, "{message: 401 Unauthorized}")
	_, err = f.root.ProtectedBranches.UnprotectRepositoryBranches(upstream.ID, "master")
	must("ProtectedBranches.UnprotectRepositoryBranches master", err)
	merged, _, err := asDeveloper.MergeRequests.AcceptMergeRequest(upstream.ID, created.IID, &gitlab.AcceptMergeRequestOptions{MergeCommitMessage: gitlab.String("Take the fork's fix")})
	must("MergeRequests.AcceptMergeRequest by the upstream's developer", err)
	check("AcceptMergeRequest from a fork", []interface{}{merged.State, merged.MergedBy.Username}, []interface{}{"merged", "go-mr-upstream-dev"})
	mergeCommit, _, err := f.root.Commits.GetCommit(upstream.ID, merged.MergeCommitSHA)
	must("Commits.GetCommit of the merge commit", err)
	check("the merge commit's parents", mergeCommit.ParentIDs, []string{start, fix.ID})
	check("the merge commit's message (MergeCommitMessage)", strings.TrimSuffix(mergeCommit.Message, "\n"), "Take the fork's fix")
	check("the merge commit's author", []string{mergeCommit.AuthorName, mergeCommit.CommitterName}, []string{developer.Name, developer.Name})
	master, _, err := f.root.Commits.GetCommit(upstream.ID, "master")
	must("Commits.GetCommit master", err)
	check("the upstream's master", master.ID, mergeCommit.ID)
	file, _, err := f.root.RepositoryFiles.GetRawFile(upstream.ID, "fix/deep/fix.txt", &gitlab.GetRawFileOptions{Ref: gitlab.String("master")})
	must("RepositoryFiles.GetRawFile", err)
	check("the fork's file in the upstream", string(file), "fixed\n")
	return "fork, ImportStatus polled, commit on the fork, create with TargetProjectID, commits, merge by a developer once unprotected, two parents"
}

func (f *flows) mergeWhenPipelineSucceeds() string {
	project, mrs := f.mrProject, f.root.MergeRequests
	head := commitOn(f.root, project.ID, "go-auto", "master", "Automatic", gitlab.FileCreate, "auto.txt", "auto\n")
	mr, _, err := mrs.CreateMergeRequest(project.ID, &gitlab.CreateMergeRequestOptions{
		Title: gitlab.String("Merged automatically"), SourceBranch: gitlab.String("go-auto"), TargetBranch: gitlab.String("master"),
	})
	must("MergeRequests.CreateMergeRequest", err)
	status := func(state gitlab.BuildStateValue) {
		_, _, err := f.root.Commits.SetCommitStatus(project.ID, head.ID, &gitlab.SetCommitStatusOptions{State: state, Name: gitlab.String("go-ci"), Ref: gitlab.String("go-auto")})
		must("Commits.SetCommitStatus "+string(state), err)
	}
	status(gitlab.Pending)
	set, _, err := mrs.AcceptMergeRequest(project.ID, mr.IID, &gitlab.AcceptMergeRequestOptions{MergeWhenPipelineSucceeds: gitlab.Bool(true)})
	must("MergeRequests.AcceptMergeRequest MergeWhenPipelineSucceeds", err)
	check("AcceptMergeRequest MergeWhenPipelineSucceeds", []interface{}{set.State, set.MergeWhenPipelineSucceeds, set.MergeCommitSHA}, []interface{}{"opened", true, ""})
	checkTrue("AcceptMergeRequest Pipeline", set.Pipeline != nil && set.Pipeline.SHA == head.ID && set.Pipeline.Ref == "go-auto" && set.Pipeline.Status == "pending", set.Pipeline)
	cancelled, resp, err := mrs.CancelMergeWhenPipelineSucceeds(project.ID, mr.IID)
	must("MergeRequests.CancelMergeWhenPipelineSucceeds", err)
	checkStatus("CancelMergeWhenPipelineSucceeds", resp, 200)
	check("CancelMergeWhenPipelineSucceeds", []interface{}{cancelled.State, cancelled.MergeWhenPipelineSucceeds}, []interface{}{"opened", false})
	_, _, err = mrs.CancelMergeWhenPipelineSucceeds(project.ID, mr.IID)
	expectError("CancelMergeWhenPipelineSucceeds twice", err, 406, "{message: 406 Not Acceptable}")
	set, _, err = mrs.AcceptMergeRequest(project.ID, mr.IID, &gitlab.AcceptMergeRequestOptions{MergeWhenPipelineSucceeds: gitlab.Bool(true)})
	must("MergeRequests.AcceptMergeRequest MergeWhenPipelineSucceeds again", err)
	check("AcceptMergeRequest MergeWhenPipelineSucceeds again", set.MergeWhenPipelineSucceeds, true)
	status(gitlab.Success)
	var merged *gitlab.MergeRequest
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		merged, _, err = mrs.GetMergeRequest(project.ID, mr.IID, nil)
		must("MergeRequests.GetMergeRequest", err)
		if merged.State == "merged" {
			break
		}
		checkTrue("the request is merged within 10 s of the pipeline's success", time.Now().Before(deadline), merged.State)
	}
	master, _, err := f.root.Commits.GetCommit(project.ID, "master")
	must("Commits.GetCommit master", err)
	check("the automatic merge", []interface{}{merged.MergedBy.Username, merged.MergeCommitSHA, master.ParentIDs[1]}, []interface{}{"root", master.ID, head.ID})
	_, _, err = mrs.CancelMergeWhenPipelineSucceeds(project.ID, mr.IID)
	expectError("CancelMergeWhenPipelineSucceeds once merged", err, 405, "{message: 405 Method Not Allowed}")
	return "pending status, MergeWhenPipelineSucceeds, cancel (and 406), set again, success merges it (polled), cancel 405"
}

func (f *flows) discussions() string {
	project, _, err := f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("go-discussions"), Visibility: gitlab.Visibility(gitlab.PrivateVisibility)})
	must("CreateProject go-discussions", err)
	dev, _, err := f.newUser("go-disc-dev")
	must("Users.CreateUser go-disc-dev", err)
	reporter, _, err := f.newUser("go-disc-reporter")
	must("Users.CreateUser go-disc-reporter", err)
	for _, member := range []struct {
		user  *gitlab.User
		level gitlab.AccessLevelValue
	}{{dev, gitlab.DeveloperPermissions}, {reporter, gitlab.ReporterPermissions}} {
		_, _, err = f.root.ProjectMembers.AddProjectMember(project.ID, &gitlab.AddProjectMemberOptions{UserID: member.user.ID, AccessLevel: gitlab.AccessLevel(member.level)})
		must("ProjectMembers.AddProjectMember", err)
	}
	asDev, asReporter := f.asUser(dev, "go-disc-dev"), f.asUser(reporter, "go-disc-reporter")
	_, _, err = f.root.RepositoryFiles.CreateFile(project.ID, "README.md", &gitlab.CreateFileOptions{
		Branch: gitlab.String("master"), Content: gitlab.String("one\n"), CommitMessage: gitlab.String("Initial commit"),
	})
	must("RepositoryFiles.CreateFile", err)
	commitOn(asDev, project.ID, "go-talk", "master", "Talk it over", gitlab.FileCreate, "talk.txt", "talk\n")
	mr, _, err := asDev.MergeRequests.CreateMergeRequest(project.ID, &gitlab.CreateMergeRequestOptions{
		Title: gitlab.String("Talk it over"), SourceBranch: gitlab.String("go-talk"), TargetBranch: gitlab.String("master"),
	})
	must("MergeRequests.CreateMergeRequest", err)
	discussions := f.root.Discussions
	blocking := func(what string, want bool) {
		shown, _, err := f.root.MergeRequests.GetMergeRequest(project.ID, mr.IID, nil)
		must("MergeRequests.GetMergeRequest", err)
		check("GetMergeRequest BlockingDiscussionsResolved ("+what+")", shown.BlockingDiscussionsResolved, want)
	}
	resolvedBy := func(notes []*gitlab.Note) []string {
		states := []string{}
		for _, note := range notes {
			states = append(states, fmt.Sprintf("%d %v %s %v", note.ID, note.Resolved, note.ResolvedBy.Username, note.ResolvedAt != nil))
		}
		return states
	}

	// A thread, a reply in it, and a note of its own, which is a discussion of its own.
	thread, resp, err := asReporter.Discussions.CreateMergeRequestDiscussion(project.ID, mr.IID, &gitlab.CreateMergeRequestDiscussionOptions{Body: gitlab.String("Why this?")})
	must("Discussions.CreateMergeRequestDiscussion", err)
	checkStatus("CreateMergeRequestDiscussion", resp, 201)
	checkTrue("CreateMergeRequestDiscussion ID (40 hex digits)", regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(thread.ID), thread.ID)
	check("CreateMergeRequestDiscussion notes", len(thread.Notes), 1)
	first := thread.Notes[0]
	check("CreateMergeRequestDiscussion", []interface{}{thread.IndividualNote, first.Body, first.Type, first.Author.Username, first.NoteableType, first.NoteableIID,
		first.NoteableID, first.Resolvable, first.Resolved, first.ResolvedBy.ID, first.ResolvedAt == nil},
		[]interface{}{false, "Why this?", gitlab.DiscussionNote, "go-disc-reporter", "MergeRequest", mr.IID, mr.ID, true, false, 0, true})
	reply, resp, err := asDev.Discussions.AddMergeRequestDiscussionNote(project.ID, mr.IID, thread.ID, &gitlab.AddMergeRequestDiscussionNoteOptions{Body: gitlab.String("Because.")})
	must("Discussions.AddMergeRequestDiscussionNote", err)
	checkStatus("AddMergeRequestDiscussionNote", resp, 201)
	check("AddMergeRequestDiscussionNote", []interface{}{reply.Body, reply.Type, reply.Author.Username, reply.Resolvable, reply.Resolved},
		[]interface{}{"Because.", gitlab.DiscussionNote, "go-disc-dev", true, false})
	plain, _, err := f.root.Notes.CreateMergeRequestNote(project.ID, mr.IID, &gitlab.CreateMergeRequestNoteOptions{Body: gitlab.String("Plain note")})
	must("Notes.CreateMergeRequestNote", err)
	listed, _, err := discussions.ListMergeRequestDiscussions(project.ID, mr.IID, &gitlab.ListMergeRequestDiscussionsOptions{})
	must("Discussions.ListMergeRequestDiscussions", err)
	var shape []string
	for _, discussion := range listed {
		for _, note := range discussion.Notes {
			shape = append(shape, fmt.Sprintf("%v %d %q %q %v", discussion.IndividualNote, note.ID, note.Body, note.Type, note.Resolvable))
		}
	}
	check("ListMergeRequestDiscussions", []interface{}{len(listed), listed[0].ID, shape}, []interface{}{2, thread.ID, []string{
		fmt.Sprintf("false %d \"Why this?\" \"DiscussionNote\" true", first.ID), fmt.Sprintf("false %d \"Because.\" \"DiscussionNote\" true", reply.ID),
		fmt.Sprintf("true %d \"Plain note\" \"\" false", plain.ID),
	}})
	individual := listed[1].ID
	updated, _, err := asDev.Discussions.UpdateMergeRequestDiscussionNote(project.ID, mr.IID, thread.ID, reply.ID, &gitlab.UpdateMergeRequestDiscussionNoteOptions{Body: gitlab.String("Because it is needed.")})
	must("Discussions.UpdateMergeRequestDiscussionNote Body", err)
	check("UpdateMergeRequestDiscussionNote Body", []interface{}{updated.ID, updated.Body}, []interface{}{reply.ID, "Because it is needed."})
	got, _, err := discussions.GetMergeRequestDiscussion(project.ID, mr.IID, thread.ID)
	must("Discussions.GetMergeRequestDiscussion", err)
	check("GetMergeRequestDiscussion", []interface{}{got.ID, got.IndividualNote, len(got.Notes), got.Notes[1].Body}, []interface{}{thread.ID, false, 2, "Because it is needed."})
	_, _, err = discussions.GetMergeRequestDiscussion(project.ID, mr.IID, strings.Repeat("0", 40))
	expectError("GetMergeRequestDiscussion of an unknown discussion", err, 404, "{message: 404 Discussion Not Found}")
	// The original answers true for a project that does not ask for resolved discussions.
	blocking("not asked for", true)

	// The project asks for resolved discussions: the unresolved thread blocks the merge.
	edited, _, err := f.root.Projects.EditProject(project.ID, &gitlab.EditProjectOptions{OnlyAllowMergeIfAllDiscussionsAreResolved: gitlab.Bool(true)})
	must("Projects.EditProject OnlyAllowMergeIfAllDiscussionsAreResolved", err)
	check("EditProject OnlyAllowMergeIfAllDiscussionsAreResolved", edited.OnlyAllowMergeIfAllDiscussionsAreResolved, true)
	blocking("unresolved", false)
	_, _, err = f.root.MergeRequests.AcceptMergeRequest(project.ID, mr.IID, &gitlab.AcceptMergeRequestOptions{})
	expectError("AcceptMergeRequest with an unresolved thread", err, 405, "{message: Branch cannot be merged}")

	// A reporter who is not the request's author may not resolve; its author (a developer) resolves the thread.
	_, _, err = asReporter.Discussions.ResolveMergeRequestDiscussion(project.ID, mr.IID, thread.ID, &gitlab.ResolveMergeRequestDiscussionOptions{Resolved: gitlab.Bool(true)})
	expectError("ResolveMergeRequestDiscussion by a reporter", err, 403, "{message: 403 Forbidden}")
	resolved, _, err := asDev.Discussions.ResolveMergeRequestDiscussion(project.ID, mr.IID, thread.ID, &gitlab.ResolveMergeRequestDiscussionOptions{Resolved: gitlab.Bool(true)})
	must("Discussions.ResolveMergeRequestDiscussion", err)
	check("ResolveMergeRequestDiscussion by the author", resolvedBy(resolved.Notes),
		[]string{fmt.Sprintf("%d true go-disc-dev true", first.ID), fmt.Sprintf("%d true go-disc-dev true", reply.ID)})
	blocking("resolved", true)
	unresolved, _, err := f.root.Discussions.UpdateMergeRequestDiscussionNote(project.ID, mr.IID, thread.ID, first.ID, &gitlab.UpdateMergeRequestDiscussionNoteOptions{Resolved: gitlab.Bool(false)})
	must("Discussions.UpdateMergeRequestDiscussionNote Resolved false", err)
	check("UpdateMergeRequestDiscussionNote Resolved false", resolvedBy([]*gitlab.Note{unresolved}), []string{fmt.Sprintf("%d false  false", first.ID)})
	got, _, err = discussions.GetMergeRequestDiscussion(project.ID, mr.IID, thread.ID)
	must("Discussions.GetMergeRequestDiscussion", err)
	check("GetMergeRequestDiscussion after a note is unresolved", resolvedBy(got.Notes),
		[]string{fmt.Sprintf("%d false  false", first.ID), fmt.Sprintf("%d true go-disc-dev true", reply.ID)})
	blocking("one note unresolved", false)
	resp, err = discussions.DeleteMergeRequestDiscussionNote(project.ID, mr.IID, individual, plain.ID)
	must("Discussions.DeleteMergeRequestDiscussionNote", err)
	checkStatus("DeleteMergeRequestDiscussionNote", resp, 204)
	_, _, err = discussions.GetMergeRequestDiscussion(project.ID, mr.IID, individual)
	expectError("GetMergeRequestDiscussion of the deleted note's discussion", err, 404, "{message: 404 Discussion Not Found}")

	// A follow-up issue takes the unresolved thread over and resolves it.
	followUp, _, err := asDev.Issues.CreateIssue(project.ID, &gitlab.CreateIssueOptions{Title: gitlab.String("Follow it up"), MergeRequestToResolveDiscussionsOf: gitlab.Int(mr.IID)})
	must("Issues.CreateIssue MergeRequestToResolveDiscussionsOf", err)
	check("CreateIssue MergeRequestToResolveDiscussionsOf", []string{followUp.Title, followUp.Description}, []string{"Follow it up",
		fmt.Sprintf("The following discussion from !%d should be addressed:\n\n- [ ] @go-disc-reporter started a [discussion](%s#note_%d):  (+1 comment)\n\n    > Why this?", mr.IID, mr.WebURL, first.ID)})
	got, _, err = discussions.GetMergeRequestDiscussion(project.ID, mr.IID, thread.ID)
	must("Discussions.GetMergeRequestDiscussion", err)
	check("the thread the follow-up resolves", resolvedBy(got.Notes), []string{fmt.Sprintf("%d true go-disc-dev true", first.ID), fmt.Sprintf("%d true go-disc-dev true", reply.ID)})
	blocking("followed up", true)
	merged, _, err := f.root.MergeRequests.AcceptMergeRequest(project.ID, mr.IID, &gitlab.AcceptMergeRequestOptions{})
	must("MergeRequests.AcceptMergeRequest once resolved", err)
	check("AcceptMergeRequest once resolved", merged.State, "merged")

	// Threads of issues are not resolvable.
	issue, _, err := f.root.Issues.CreateIssue(project.ID, &gitlab.CreateIssueOptions{Title: gitlab.String("Talk")})
	must("Issues.CreateIssue", err)
	issueThread, resp, err := asReporter.Discussions.CreateIssueDiscussion(project.ID, issue.IID, &gitlab.CreateIssueDiscussionOptions{Body: gitlab.String("Hello")})
	must("Discussions.CreateIssueDiscussion", err)
	checkStatus("CreateIssueDiscussion", resp, 201)
	check("CreateIssueDiscussion", []interface{}{issueThread.IndividualNote, len(issueThread.Notes), issueThread.Notes[0].Body, issueThread.Notes[0].Type,
		issueThread.Notes[0].NoteableType, issueThread.Notes[0].Resolvable}, []interface{}{false, 1, "Hello", gitlab.DiscussionNote, "Issue", false})
	issueReply, _, err := f.root.Discussions.AddIssueDiscussionNote(project.ID, issue.IID, issueThread.ID, &gitlab.AddIssueDiscussionNoteOptions{Body: gitlab.String("Hi")})
	must("Discussions.AddIssueDiscussionNote", err)
	check("AddIssueDiscussionNote", []interface{}{issueReply.Body, issueReply.Type, issueReply.Resolvable}, []interface{}{"Hi", gitlab.DiscussionNote, false})
	gotIssue, _, err := discussions.GetIssueDiscussion(project.ID, issue.IID, issueThread.ID)
	must("Discussions.GetIssueDiscussion", err)
	check("GetIssueDiscussion", []interface{}{gotIssue.ID, len(gotIssue.Notes), gotIssue.Notes[1].Body}, []interface{}{issueThread.ID, 2, "Hi"})
	return "merge request: create, reply, list (thread and individual note), get (and 404), note body, resolve (403 for a reporter), " +
		"unresolve a note, delete a note, OnlyAllowMergeIfAllDiscussionsAreResolved (405, then merged), a follow-up issue; issue: create, reply, not resolvable"
}

func environmentNames(environments []*gitlab.Environment) []string {
	names := []string{}
	for _, environment := range environments {
		names = append(names, environment.Name+" "+environment.State)
	}
	return names
}

func (f *flows) environments() string {
	project, _, err := f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("go-environments"), Visibility: gitlab.Visibility(gitlab.PrivateVisibility)})
	must("CreateProject go-environments", err)
	dev, _, err := f.newUser("go-env-dev")
	must("Users.CreateUser go-env-dev", err)
	reporter, _, err := f.newUser("go-env-reporter")
	must("Users.CreateUser go-env-reporter", err)
	for _, member := range []struct {
		user  *gitlab.User
		level gitlab.AccessLevelValue
	}{{dev, gitlab.DeveloperPermissions}, {reporter, gitlab.ReporterPermissions}} {
		_, _, err = f.root.ProjectMembers.AddProjectMember(project.ID, &gitlab.AddProjectMemberOptions{UserID: member.user.ID, AccessLevel: gitlab.AccessLevel(member.level)})
		must("ProjectMembers.AddProjectMember", err)
	}
	asDev, asReporter := f.asUser(dev, "go-env-dev").Environments, f.asUser(reporter, "go-env-reporter").Environments
	environments := f.root.Environments

	// Developers create environments; the slug is the name, or made from it with a random suffix.
	production, resp, err := asDev.CreateEnvironment(project.ID, &gitlab.CreateEnvironmentOptions{Name: gitlab.String("production"), ExternalURL: gitlab.String("https://prod.example.com")})
	must("Environments.CreateEnvironment", err)
	checkStatus("CreateEnvironment", resp, 201)
	check("CreateEnvironment", []interface{}{production.Name, production.Slug, production.ExternalURL, production.State, production.LastDeployment == nil},
		[]interface{}{"production", "production", "https://prod.example.com", "available", true})
	review, _, err := asDev.CreateEnvironment(project.ID, &gitlab.CreateEnvironmentOptions{Name: gitlab.String("Review/go-1")})
	must("Environments.CreateEnvironment Review/go-1", err)
	checkTrue("CreateEnvironment slug", regexp.MustCompile(`^review-go-1-[a-z0-9]{6}$`).MatchString(review.Slug), review.Slug)
	_, _, err = environments.CreateEnvironment(project.ID, &gitlab.CreateEnvironmentOptions{Name: gitlab.String("Review/go-1")})
	expectError("CreateEnvironment with a taken name", err, 400, "{message: {name: [has already been taken]}}")
	_, _, err = environments.CreateEnvironment(project.ID, &gitlab.CreateEnvironmentOptions{Name: gitlab.String("qa"), ExternalURL: gitlab.String("qa.example.com")})
	expectError("CreateEnvironment with a bad external URL", err, 400, "{message: {external_url: [must be a valid URL]}}")
	_, _, err = asReporter.CreateEnvironment(project.ID, &gitlab.CreateEnvironmentOptions{Name: gitlab.String("qa")})
	expectError("CreateEnvironment by a reporter", err, 403, "{message: 403 Forbidden}")

	// Reporters read them: lists (oldest first; by name, search and state, across pages) and one by ID.
	listed, _, err := asReporter.ListEnvironments(project.ID, &gitlab.ListEnvironmentsOptions{})
	must("Environments.ListEnvironments", err)
	check("ListEnvironments", environmentNames(listed), []string{"production available", "Review/go-1 available"})
	listed, _, err = asReporter.ListEnvironments(project.ID, &gitlab.ListEnvironmentsOptions{Search: gitlab.String("REVIEW")})
	must("Environments.ListEnvironments Search", err)
	check("ListEnvironments Search", environmentNames(listed), []string{"Review/go-1 available"})
	listed, _, err = asReporter.ListEnvironments(project.ID, &gitlab.ListEnvironmentsOptions{Name: gitlab.String("production")})
	must("Environments.ListEnvironments Name", err)
	check("ListEnvironments Name", environmentNames(listed), []string{"production available"})
	page, resp, err := asReporter.ListEnvironments(project.ID, &gitlab.ListEnvironmentsOptions{ListOptions: gitlab.ListOptions{PerPage: 1, Page: 2}})
	must("Environments.ListEnvironments page 2", err)
	check("ListEnvironments page 2", []interface{}{environmentNames(page), resp.TotalItems, resp.TotalPages, resp.PreviousPage, resp.NextPage},
		[]interface{}{[]string{"Review/go-1 available"}, 2, 2, 1, 0})
	got, _, err := asReporter.GetEnvironment(project.ID, review.ID)
	must("Environments.GetEnvironment", err)
	check("GetEnvironment", []interface{}{got.ID, got.Name, got.Slug, got.ExternalURL}, []interface{}{review.ID, "Review/go-1", review.Slug, ""})
	_, _, err = environments.GetEnvironment(project.ID, review.ID+1000)
	expectError("GetEnvironment of an unknown environment", err, 404, "{message: 404 Not found}")

	// Developers rename them (the slug stays), stop and delete them; reporters may not.
	_, _, err = asReporter.EditEnvironment(project.ID, review.ID, &gitlab.EditEnvironmentOptions{Name: gitlab.String("review/go-renamed")})
	expectError("EditEnvironment by a reporter", err, 403, "{message: 403 Forbidden}")
	edited, _, err := asDev.EditEnvironment(project.ID, review.ID, &gitlab.EditEnvironmentOptions{Name: gitlab.String("review/go-renamed"), ExternalURL: gitlab.String("https://review.example.com")})
	must("Environments.EditEnvironment", err)
	check("EditEnvironment", []string{edited.Name, edited.Slug, edited.ExternalURL}, []string{"review/go-renamed", review.Slug, "https://review.example.com"})
	_, err = asReporter.StopEnvironment(project.ID, production.ID)
	expectError("StopEnvironment by a reporter", err, 403, "{message: 403 Forbidden}")
	resp, err = asDev.StopEnvironment(project.ID, review.ID)
	must("Environments.StopEnvironment", err)
	checkStatus("StopEnvironment", resp, 200)
	listed, _, err = environments.ListEnvironments(project.ID, &gitlab.ListEnvironmentsOptions{States: gitlab.String("stopped")})
	must("Environments.ListEnvironments States", err)
	check("ListEnvironments States stopped", environmentNames(listed), []string{"review/go-renamed stopped"})
	_, err = asReporter.DeleteEnvironment(project.ID, production.ID)
	expectError("DeleteEnvironment by a reporter", err, 403, "{message: 403 Forbidden}")
	for _, environment := range []*gitlab.Environment{review, production} {
		resp, err = asDev.DeleteEnvironment(project.ID, environment.ID)
		must("Environments.DeleteEnvironment", err)
		checkStatus("DeleteEnvironment", resp, 204)
	}
	listed, _, err = environments.ListEnvironments(project.ID, nil)
	must("Environments.ListEnvironments after deleting", err)
	check("ListEnvironments after deleting", environmentNames(listed), []string{})
	_, err = environments.DeleteEnvironment(project.ID, production.ID)
	expectError("DeleteEnvironment once gone", err, 404, "{message: 404 Not found}")
	return "create (slug, 400 taken, external URL; 403 for a reporter), list (search, name, states, pages), get (and 404), " +
		"edit (renamed, slug kept), stop, delete (and 404) by a developer, each 403 for a reporter"
}

func runnerIDs(runners []*gitlab.Runner) []int {
	ids := []int{}
	for _, runner := range runners {
		ids = append(ids, runner.ID)
	}
	return ids
}

func (f *flows) runners() string {
	runners := f.root.Runners
	token := regexp.MustCompile(`^[A-Za-z0-9]{20}$`)
	// The instance's registration token, as later clients reset it (administrators).
	reset, resp, err := runners.ResetInstanceRunnerRegistrationToken()
	must("ResetInstanceRunnerRegistrationToken", err)
	checkStatus("ResetInstanceRunnerRegistrationToken", resp, 201)
	checkTrue("ResetInstanceRunnerRegistrationToken token", reset.Token != nil && token.MatchString(*reset.Token))
	check("ResetInstanceRunnerRegistrationToken token_expires_at", reset.TokenExpiresAt == nil, true)

	owner, _, err := f.newUser("go-runner-owner")
	must("CreateUser go-runner-owner", err)
	asOwner := f.asUser(owner, "go-runners")
	first, _, err := asOwner.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("go-runners-one")})
	must("CreateProject go-runners-one", err)
	second, _, err := asOwner.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("go-runners-two")})
	must("CreateProject go-runners-two", err)
	checkTrue("Project.RunnersToken for its owner", token.MatchString(first.RunnersToken), first.RunnersToken)
	group, _, err := asOwner.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.String("go-runners"), Path: gitlab.String("go-runners")})
	must("CreateGroup go-runners", err)
	shownGroup, _, err := asOwner.Groups.GetGroup(group.ID, nil)
	must("GetGroup go-runners", err)
	checkTrue("Group.RunnersToken for its owner", token.MatchString(shownGroup.RunnersToken), shownGroup.RunnersToken)

	// Registered as gitlab-runner registers: with a project's, the instance's and a group's token.
	runner, resp, err := runners.RegisterNewRunner(&gitlab.RegisterNewRunnerOptions{
		Token: gitlab.String(first.RunnersToken), Description: gitlab.String("go-runner"), TagList: &[]string{"docker", "linux"}, RunUntagged: gitlab.Bool(false),
		Info: &gitlab.RegisterNewRunnerInfoOptions{Name: gitlab.String("gitlab-runner"), Version: gitlab.String("11.4.2"), Platform: gitlab.String("linux")},
	})
	must("RegisterNewRunner (project)", err)
	checkStatus("RegisterNewRunner", resp, 201)
	checkTrue("RegisterNewRunner token", token.MatchString(runner.Token), runner.Token)
	shared, _, err := runners.RegisterNewRunner(&gitlab.RegisterNewRunnerOptions{Token: reset.Token, Description: gitlab.String("go-shared")})
	must("RegisterNewRunner (instance)", err)
	groupRunner, _, err := runners.RegisterNewRunner(&gitlab.RegisterNewRunnerOptions{Token: gitlab.String(shownGroup.RunnersToken), Description: gitlab.String("go-group")})
	must("RegisterNewRunner (group)", err)
	_, _, err = runners.RegisterNewRunner(&gitlab.RegisterNewRunnerOptions{Token: gitlab.String("go-unknown")})
	expectError("RegisterNewRunner with an unknown token", err, 403, "{message: 403 Forbidden}")

	// The runner verifies its token: that is its contact.
	resp, err = runners.VerifyRegisteredRunner(&gitlab.VerifyRegisteredRunnerOptions{Token: gitlab.String(runner.Token)})
	must("VerifyRegisteredRunner", err)
	checkStatus("VerifyRegisteredRunner", resp, 200)
	_, err = runners.VerifyRegisteredRunner(&gitlab.VerifyRegisteredRunnerOptions{Token: gitlab.String("go-unknown")})
	expectError("VerifyRegisteredRunner with an unknown token", err, 403, "{message: 403 Forbidden}")
	detail, _, err := asOwner.Runners.GetRunnerDetails(runner.ID)
	must("GetRunnerDetails", err)
	check("GetRunnerDetails", []interface{}{detail.Description, detail.IsShared, detail.RunnerType, detail.TagList, detail.RunUntagged, detail.Name, detail.Version,
		detail.Platform, detail.Token, detail.Online, detail.Status, detail.AccessLevel, len(detail.Projects)},
		[]interface{}{"go-runner", false, "project_type", []string{"docker", "linux"}, false, "gitlab-runner", "11.4.2", "linux", runner.Token, true, "online", "not_protected", 1})
	check("GetRunnerDetails projects", detail.Projects[0].ID, first.ID)
	checkTrue("GetRunnerDetails contacted_at", detail.ContactedAt != nil && time.Since(*detail.ContactedAt) < time.Minute)
	groupDetail, _, err := asOwner.Runners.GetRunnerDetails(groupRunner.ID)
	must("GetRunnerDetails (group)", err)
	check("GetRunnerDetails (group)", []interface{}{groupDetail.RunnerType, groupDetail.Status, len(groupDetail.Groups), groupDetail.Groups[0].ID}, []interface{}{"group_type", "not_connected", 1, group.ID})
	sharedDetail, _, err := asOwner.Runners.GetRunnerDetails(shared.ID)
	must("GetRunnerDetails (shared, by a user)", err)
	check("GetRunnerDetails (shared, by a user)", []interface{}{sharedDetail.IsShared, sharedDetail.Token}, []interface{}{true, ""})

	// Lists: the owner's own by scope, type and tags; every runner for root.
	owned, _, err := asOwner.Runners.ListRunners(&gitlab.ListRunnersOptions{})
	must("ListRunners", err)
	check("ListRunners", runnerIDs(owned), []int{groupRunner.ID, runner.ID})
	byType, _, err := asOwner.Runners.ListRunners(&gitlab.ListRunnersOptions{Type: gitlab.String("group_type")})
	must("ListRunners (type)", err)
	check("ListRunners (type)", runnerIDs(byType), []int{groupRunner.ID})
	online, _, err := asOwner.Runners.ListRunners(&gitlab.ListRunnersOptions{Scope: gitlab.String("online"), TagList: &[]string{"docker"}})
	must("ListRunners (scope, tags)", err)
	check("ListRunners (scope, tags)", runnerIDs(online), []int{runner.ID})
	_, _, err = asOwner.Runners.ListRunners(&gitlab.ListRunnersOptions{Scope: gitlab.String("shared")})
	expectError("ListRunners (scope shared)", err, 400, "")
	all, _, err := runners.ListAllRunners(&gitlab.ListRunnersOptions{ListOptions: gitlab.ListOptions{PerPage: 100}})
	must("ListAllRunners", err)
	seen := map[int]bool{}
	for _, id := range runnerIDs(all) {
		seen[id] = true
	}
	checkTrue("ListAllRunners has all three", seen[runner.ID] && seen[shared.ID] && seen[groupRunner.ID])
	sharedOnly, _, err := runners.ListAllRunners(&gitlab.ListRunnersOptions{Scope: gitlab.String("shared"), ListOptions: gitlab.ListOptions{PerPage: 100}})
	must("ListAllRunners (shared)", err)
	for _, listed := range sharedOnly {
		checkTrue("ListAllRunners (shared) is_shared", listed.IsShared, listed.ID)
	}
	_, _, err = asOwner.Runners.ListAllRunners(nil)
	expectError("ListAllRunners as a user", err, 403, "{message: 403 Forbidden}")

	// Changed: tag_list is the full set of its tags.
	updated, _, err := asOwner.Runners.UpdateRunnerDetails(runner.ID, &gitlab.UpdateRunnerDetailsOptions{
		Description: gitlab.String("go-runner changed"), TagList: &[]string{"ruby"}, Active: gitlab.Bool(false), AccessLevel: gitlab.String("ref_protected"), MaximumTimeout: gitlab.Int(3600),
	})
	must("UpdateRunnerDetails", err)
	check("UpdateRunnerDetails", []interface{}{updated.Description, updated.TagList, updated.Active, updated.Status, updated.AccessLevel, updated.MaximumTimeout},
		[]interface{}{"go-runner changed", []string{"ruby"}, false, "paused", "ref_protected", 3600})
	_, _, err = asOwner.Runners.UpdateRunnerDetails(runner.ID, &gitlab.UpdateRunnerDetailsOptions{AccessLevel: gitlab.String("everything")})
	expectError("UpdateRunnerDetails with a wrong access level", err, 400, "")
	_, _, err = asOwner.Runners.UpdateRunnerDetails(shared.ID, &gitlab.UpdateRunnerDetailsOptions{Active: gitlab.Bool(false)})
	expectError("UpdateRunnerDetails of a shared runner", err, 403, "{message: 403 Forbidden - No access granted}")

	// Enabled in the owner's second project, listed there, then disabled; never in its only project.
	enabled, resp, err := asOwner.Runners.EnableProjectRunner(second.ID, &gitlab.EnableProjectRunnerOptions{RunnerID: runner.ID})
	must("EnableProjectRunner", err)
	checkStatus("EnableProjectRunner", resp, 201)
	check("EnableProjectRunner", []interface{}{enabled.ID, enabled.IsShared}, []interface{}{runner.ID, false})
	_, _, err = asOwner.Runners.EnableProjectRunner(second.ID, &gitlab.EnableProjectRunnerOptions{RunnerID: runner.ID})
	expectError("EnableProjectRunner twice", err, 400, "")
	_, _, err = asOwner.Runners.EnableProjectRunner(second.ID, &gitlab.EnableProjectRunnerOptions{RunnerID: shared.ID})
	expectError("EnableProjectRunner (shared)", err, 403, "{message: 403 Forbidden - No access granted}")
	_, _, err = asOwner.Runners.EnableProjectRunner(second.ID, &gitlab.EnableProjectRunnerOptions{RunnerID: groupRunner.ID})
	expectError("EnableProjectRunner (group)", err, 403, "{message: 403 Forbidden - Runner is a group runner}")
	specific, _, err := asOwner.Runners.ListProjectRunners(second.ID, &gitlab.ListProjectRunnersOptions{Scope: gitlab.String("specific")})
	must("ListProjectRunners", err)
	check("ListProjectRunners", runnerIDs(specific), []int{runner.ID})
	_, err = asOwner.Runners.RemoveRunner(runner.ID)
	expectError("RemoveRunner of a runner of two projects", err, 403, "{message: 403 Forbidden - Runner associated with more than one project}")
	resp, err = asOwner.Runners.DisableProjectRunner(second.ID, runner.ID)
	must("DisableProjectRunner", err)
	checkStatus("DisableProjectRunner", resp, 204)
	_, err = asOwner.Runners.DisableProjectRunner(first.ID, runner.ID)
	expectError("DisableProjectRunner in its only project", err, 403, "{message: 403 Forbidden - Only one project associated with the runner. Please remove the runner instead}")

	// Removed: by its owner, by itself, and by an administrator.
	resp, err = asOwner.Runners.RemoveRunner(runner.ID)
	must("RemoveRunner", err)
	checkStatus("RemoveRunner", resp, 204)
	_, _, err = runners.GetRunnerDetails(runner.ID)
	expectError("GetRunnerDetails once removed", err, 404, "{message: 404 Runner Not Found}")
	resp, err = runners.DeleteRegisteredRunner(&gitlab.DeleteRegisteredRunnerOptions{Token: gitlab.String(shared.Token)})
	must("DeleteRegisteredRunner", err)
	checkStatus("DeleteRegisteredRunner", resp, 204)
	_, err = runners.DeleteRegisteredRunner(&gitlab.DeleteRegisteredRunnerOptions{Token: gitlab.String(shared.Token)})
	expectError("DeleteRegisteredRunner once gone", err, 403, "{message: 403 Forbidden}")
	_, err = runners.RemoveRunner(groupRunner.ID)
	must("RemoveRunner (group, administrator)", err)
	return "reset the registration token, register (project, instance, group; 403), verify (403), details (project, group, shared), " +
		"list (type, scope, tags; 400), list all (shared; 403), update (400, 403), enable in a project (twice 400, shared and group 403), " +
		"project list, disable (only project 403), remove (two projects 403), a runner removing itself"
}

// eventSummary is what a list of events says, one line each: the action, the target's type and the author.
func eventSummary(events []*gitlab.ContributionEvent) []string {
	lines := []string{}
	for _, event := range events {
		lines = append(lines, fmt.Sprintf("%s|%s|%s", event.ActionName, event.TargetType, event.AuthorUsername))
	}
	return lines
}

func (f *flows) events() string {
	project, _, err := f.root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("go-events"), Visibility: gitlab.Visibility(gitlab.PrivateVisibility)})
	must("CreateProject go-events", err)
	member, _, err := f.newUser("go-events-member")
	must("Users.CreateUser go-events-member", err)
	_, _, err = f.root.ProjectMembers.AddProjectMember(project.ID, &gitlab.AddProjectMemberOptions{UserID: member.ID, AccessLevel: gitlab.AccessLevel(gitlab.ReporterPermissions)})
	must("ProjectMembers.AddProjectMember", err)
	asMember := f.asUser(member, "go-events-member")

	// Two pushes through the API: the first makes the branch, the second moves it.
	_, _, err = f.root.RepositoryFiles.CreateFile(project.ID, "README.md", &gitlab.CreateFileOptions{
		Branch: gitlab.String("main"), Content: gitlab.String("# Events\n"), CommitMessage: gitlab.String("Start the events"),
	})
	must("RepositoryFiles.CreateFile", err)
	first, _, err := f.root.Commits.GetCommit(project.ID, "main")
	must("Commits.GetCommit main", err)
	second, _, err := f.root.Commits.CreateCommit(project.ID, &gitlab.CreateCommitOptions{
		Branch: gitlab.String("main"), CommitMessage: gitlab.String("Add the notes\n\nWith a body."),
		Actions: []*gitlab.CommitActionOptions{{Action: gitlab.FileAction(gitlab.FileCreate), FilePath: gitlab.String("NOTES.md"), Content: gitlab.String("notes\n")}},
	})
	must("Commits.CreateCommit", err)
	// An issue opened by root, commented on by the member, closed by root.
	issue, _, err := f.root.Issues.CreateIssue(project.ID, &gitlab.CreateIssueOptions{Title: gitlab.String("go-events issue")})
	must("Issues.CreateIssue", err)
	note, _, err := asMember.Notes.CreateIssueNote(project.ID, issue.IID, &gitlab.CreateIssueNoteOptions{Body: gitlab.String("go-events comment")})
	must("Notes.CreateIssueNote", err)
	_, _, err = f.root.Issues.UpdateIssue(project.ID, issue.IID, &gitlab.UpdateIssueOptions{StateEvent: gitlab.String("close")})
	must("Issues.UpdateIssue close", err)

	// The project's events, newest first, in the original's words; oldest first with Sort asc.
	events := f.root.Events
	listed, resp, err := events.ListProjectVisibleEvents(project.ID, nil)
	must("Events.ListProjectVisibleEvents", err)
	checkStatus("ListProjectVisibleEvents", resp, 200)
	check("ListProjectVisibleEvents", eventSummary(listed), []string{
		"closed|Issue|root", "commented on|Note|go-events-member", "opened|Issue|root", "pushed to||root", "pushed new||root",
		"joined||go-events-member", "created||root",
	})
	for _, event := range listed {
		check("event ProjectID", event.ProjectID, project.ID)
		checkTrue("event CreatedAt", event.CreatedAt != nil && time.Since(*event.CreatedAt) < time.Hour, event.CreatedAt)
		check("event Author", []interface{}{event.Author.ID, event.Author.Username, event.AuthorID}, []interface{}{event.AuthorID, event.AuthorUsername, event.Author.ID})
		check("event Note only on comments", event.Note != nil, event.ActionName == "commented on")
	}
	check("joined event author", []interface{}{listed[5].AuthorID, listed[5].Author.State, listed[5].TargetID}, []interface{}{member.ID, "active", 0})
	ascending, _, err := events.ListProjectVisibleEvents(project.ID, &gitlab.ListContributionEventsOptions{Sort: gitlab.String("asc")})
	must("Events.ListProjectVisibleEvents Sort asc", err)
	reversed := eventSummary(listed)
	for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
		reversed[i], reversed[j] = reversed[j], reversed[i]
	}
	check("ListProjectVisibleEvents Sort asc", eventSummary(ascending), reversed)
	page, resp, err := events.ListProjectVisibleEvents(project.ID, &gitlab.ListContributionEventsOptions{ListOptions: gitlab.ListOptions{PerPage: 2, Page: 2}})
	must("Events.ListProjectVisibleEvents page 2", err)
	check("ListProjectVisibleEvents page 2", []interface{}{eventSummary(page), resp.TotalItems, resp.TotalPages, resp.CurrentPage, resp.PreviousPage, resp.NextPage},
		[]interface{}{[]string{"opened|Issue|root", "pushed to||root"}, 7, 4, 2, 1, 3})

	// By action: the pushes, with their push_data.
	pushed := gitlab.PushedEventType
	pushes, _, err := events.ListProjectVisibleEvents(project.ID, &gitlab.ListContributionEventsOptions{Action: &pushed})
	must("Events.ListProjectVisibleEvents Action pushed", err)
	check("ListProjectVisibleEvents Action pushed", eventSummary(pushes), []string{"pushed to||root", "pushed new||root"})
	moved, made := pushes[0], pushes[1]
	check("pushed to", []interface{}{moved.TargetID, moved.TargetIID, moved.TargetTitle, moved.Note == nil}, []interface{}{0, 0, "", true})
	check("pushed to PushData", []interface{}{moved.PushData.CommitCount, moved.PushData.Action, moved.PushData.RefType, moved.PushData.Ref,
		moved.PushData.CommitFrom, moved.PushData.CommitTo, moved.PushData.CommitTitle},
		[]interface{}{1, "pushed", "branch", "main", first.ID, second.ID, "Add the notes"})
	check("pushed new PushData", []interface{}{made.PushData.CommitCount, made.PushData.Action, made.PushData.RefType, made.PushData.Ref,
		made.PushData.CommitFrom, made.PushData.CommitTo, made.PushData.CommitTitle},
		[]interface{}{1, "created", "branch", "main", "", first.ID, "Start the events"})
	check("no PushData but on pushes", listed[0].PushData.Ref+listed[1].PushData.Ref+listed[6].PushData.Action, "")

	// By target type: the issue's events; a comment, with its note.
	issueType, noteType := gitlab.IssueEventTargetType, gitlab.NoteEventTargetType
	onIssue, _, err := events.ListProjectVisibleEvents(project.ID, &gitlab.ListContributionEventsOptions{TargetType: &issueType})
	must("Events.ListProjectVisibleEvents TargetType issue", err)
	check("ListProjectVisibleEvents TargetType issue", eventSummary(onIssue), []string{"closed|Issue|root", "opened|Issue|root"})
	for _, event := range onIssue {
		check("issue event target", []interface{}{event.TargetID, event.TargetIID, event.TargetTitle}, []interface{}{issue.ID, issue.IID, "go-events issue"})
	}
	commented := gitlab.CommentedEventType
	comments, _, err := events.ListProjectVisibleEvents(project.ID, &gitlab.ListContributionEventsOptions{Action: &commented, TargetType: &noteType})
	must("Events.ListProjectVisibleEvents Action commented TargetType note", err)
	check("ListProjectVisibleEvents commented", eventSummary(comments), []string{"commented on|Note|go-events-member"})
	comment := comments[0]
	check("comment event target", []interface{}{comment.TargetID, comment.TargetIID}, []interface{}{note.ID, note.ID})
	check("comment event Note", []interface{}{comment.Note.ID, comment.Note.Body, comment.Note.Type, comment.Note.System, comment.Note.Author.Username,
		comment.Note.NoteableType, comment.Note.NoteableID, comment.Note.NoteableIID},
		[]interface{}{note.ID, "go-events comment", gitlab.NoteTypeValue(""), false, "go-events-member", "Issue", issue.ID, issue.IID})
	merged := gitlab.MergedEventType
	none, _, err := events.ListProjectVisibleEvents(project.ID, &gitlab.ListContributionEventsOptions{Action: &merged})
	must("Events.ListProjectVisibleEvents Action merged", err)
	check("ListProjectVisibleEvents Action merged", eventSummary(none), []string{})

	// By day: before a day began, after it ended.
	day := listed[0].CreatedAt.UTC()
	isoDay := func(days int) *gitlab.ISOTime {
		shifted := gitlab.ISOTime(day.AddDate(0, 0, days))
		return &shifted
	}
	for _, when := range []struct {
		what          string
		before, after *gitlab.ISOTime
		count         int
	}{{"After yesterday, Before tomorrow", isoDay(1), isoDay(-1), 7}, {"Before today", isoDay(0), nil, 0}, {"After today", nil, isoDay(0), 0}} {
		dated, _, err := events.ListProjectVisibleEvents(project.ID, &gitlab.ListContributionEventsOptions{Before: when.before, After: when.after})
		must("Events.ListProjectVisibleEvents "+when.what, err)
		check("ListProjectVisibleEvents "+when.what, len(dated), when.count)
	}

	// A user's contribution events, by ID and by username; the caller's own.
	theirs, _, err := f.root.Users.ListUserContributionEvents(member.ID, nil)
	must("Users.ListUserContributionEvents", err)
	check("ListUserContributionEvents", eventSummary(theirs), []string{"commented on|Note|go-events-member", "joined||go-events-member"})
	byName, _, err := f.root.Users.ListUserContributionEvents("go-events-member", &gitlab.ListContributionEventsOptions{Action: &commented})
	must("Users.ListUserContributionEvents by username", err)
	check("ListUserContributionEvents by username, Action commented", eventSummary(byName), []string{"commented on|Note|go-events-member"})
	own, _, err := asMember.Events.ListCurrentUserContributionEvents(nil)
	must("Events.ListCurrentUserContributionEvents as the member", err)
	check("ListCurrentUserContributionEvents as the member", eventSummary(own), []string{"commented on|Note|go-events-member", "joined||go-events-member"})
	rootOwn, resp, err := events.ListCurrentUserContributionEvents(&gitlab.ListContributionEventsOptions{TargetType: &issueType, ListOptions: gitlab.ListOptions{PerPage: 2, Page: 1}})
	must("Events.ListCurrentUserContributionEvents TargetType issue", err)
	check("ListCurrentUserContributionEvents TargetType issue", eventSummary(rootOwn), []string{"closed|Issue|root", "opened|Issue|root"})
	check("ListCurrentUserContributionEvents TargetType issue titles", []string{rootOwn[0].TargetTitle, rootOwn[1].TargetTitle}, []string{"go-events issue", "go-events issue"})
	check("ListCurrentUserContributionEvents page", []interface{}{resp.CurrentPage, resp.PreviousPage, resp.NextPage}, []interface{}{1, 0, 2})

	// A stranger sees none of a private project's events; anonymously, GET /events is refused.
	stranger, _, err := f.newUser("go-events-stranger")
	must("Users.CreateUser go-events-stranger", err)
	asStranger := f.asUser(stranger, "go-events-stranger")
	_, _, err = asStranger.Events.ListProjectVisibleEvents(project.ID, nil)
	expectError("ListProjectVisibleEvents by a stranger", err, 404, "{message: 404 Project Not Found}")
	seen, _, err := asStranger.Users.ListUserContributionEvents(member.ID, nil)
	must("Users.ListUserContributionEvents by a stranger", err)
	check("ListUserContributionEvents by a stranger", eventSummary(seen), []string{})
	_, _, err = f.client("").Events.ListCurrentUserContributionEvents(nil)
	expectError("ListCurrentUserContributionEvents anonymously", err, 401, "{message: 401 Unauthorized}")
	return "project (newest first, Sort asc, pages; Action pushed with push_data, TargetType issue, commented+note with its note, merged none; " +
		"Before/After), a user's (by ID and username), the caller's own (TargetType, pages), a stranger's (404, none), anonymously 401"
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
		{"repository files", f.repositoryFiles}, {"commits", f.commits}, {"branches", f.branches},
		{"tags", f.tags}, {"commit statuses", f.commitStatuses}, {"commit comments", f.commitComments}, {"repository", f.repository},
		{"issues", f.issues}, {"labels and milestones", f.planning}, {"merge requests", f.mergeRequests},
		{"merge request from a fork", f.mergeRequestFromFork}, {"merge when pipeline succeeds", f.mergeWhenPipelineSucceeds},
		{"discussions", f.discussions}, {"environments", f.environments}, {"runners", f.runners}, {"events", f.events},
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
