Feature: Explaining which repositories are indexed
  An operator asks phpbotscout which repositories of the GitLab group it indexes, and reads
  for every one of them the clause of the predicate that admitted or rejected it.

  Background:
    Given a fake GitLab group "acme"
    And the forge has a public project "acme/handbook" with a docs site
    And the forge has a public project "acme/go/config" without a docs site
    And the forge has a public project "acme/tools" without a docs site
    And the forge has a public project "acme/infra" with a docs site
    And the forge has a private project "acme/secret" with a docs site
    And the forge has an archived project "acme/old" with a docs site
    And the forge has a public project "acme/unlisted" with a docs site
    And the estate feed lists every project except "acme/unlisted"
    And a configuration discovering that group

  Scenario: Every candidate is listed with the clause that decided it
    Given the configuration excludes "acme/infra"
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index sources --json`
    Then the exit code is 0
    And source "acme/handbook" is "admitted" by clause "site"
    And source "acme/go/config" is "admitted" by clause "siteless"
    And source "acme/tools" is "rejected" by clause "site"
    And source "acme/infra" is "rejected" by clause "excluded"
    And source "acme/secret" is "rejected" by clause "visibility"
    And source "acme/old" is "rejected" by clause "archived"
    And source "acme/unlisted" is "rejected" by clause "feed"

  Scenario: The table says why in words
    Given the configuration excludes "acme/infra"
    And the index has been built
    When I run `python -m bot.cli index sources`
    Then the exit code is 0
    And the table explains "not listed in the estate feed"
    And the table explains "named in sources.exclude"
    And the table explains "admitted under go/ for README, code and changelog only"
    And the table explains "visibility is 'private', not public"

  Scenario: An excluded repository is never read or cloned
    Given the configuration excludes "acme/infra"
    When I run `python -m bot.cli index build`
    Then the exit code is 0
    And the forge saw no request about "acme/infra"
    And there is no clone of "acme/infra"

  Scenario: A fact that cannot be checked leaves the verdict unresolved
    Given the docs site of "acme/handbook" answers 503
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index sources --json`
    Then source "acme/handbook" is "unresolved" by clause "site"

  Scenario: Pages switched off in GitLab takes the site away on the next build
    Given the index has been built
    And GitLab reports Pages "disabled" for "acme/handbook"
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index sources`
    Then the exit code is 0
    And the table explains "its Pages are off (pages_access_level is disabled)"

  Scenario: A project deleted while the group is listed takes no other project with it
    Given the index has been built
    And GitLab lists 1 project a page
    And "acme/handbook" is deleted once the first page has been read
    When I run `python -m bot.cli index build`
    Then the exit code is 0
    When I run `python -m bot.cli index sources --json`
    Then source "acme/go/config" is "admitted" by clause "siteless"

  Scenario: A renamed project leaves its old name saying where it went
    Given the index has been built
    And "acme/handbook" is renamed to "acme/manual", in GitLab and in the estate feed
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index sources`
    Then the exit code is 0
    And the table explains "GitLab says the project is now acme/manual (renamed or moved)"
    When I run `python -m bot.cli index sources --json`
    Then source "acme/handbook" is "rejected" by clause "group"
    And source "acme/manual" is "admitted" by clause "site"
    And there is no clone of "acme/handbook"

  Scenario: A project renamed in letter case only is one source under its new name
    Given the index has been built
    And "acme/handbook" is renamed to "acme/Handbook", in GitLab and in the estate feed
    When I run `python -m bot.cli index build`
    Then the exit code is 0
    And the output says "renamed: acme/handbook is now acme/Handbook in GitLab, in letter case only"
    When I run `python -m bot.cli index sources --json`
    Then source "acme/Handbook" is "admitted" by clause "site"
    And no source "acme/handbook" is listed
    And there is no clone of "acme/handbook"

  Scenario: A project renamed in letter case only is not asked again what it told before
    Given the index has been built
    And "acme/handbook" is renamed to "acme/Handbook", in GitLab and in the estate feed
    When the index is built again
    Then the exit code is 0
    And the last build read no site config
    And the last build asked no docs site

  Scenario: A project listed twice while the group is read is indexed once
    Given GitLab lists 2 projects a page
    And a public project "acme/moved" moves into the group once the first page has been read
    When I run `python -m bot.cli index build --json`
    Then the exit code is 0
    And the build lists "acme/go/config" once
    When I run `python -m bot.cli index sources --json`
    Then source "acme/go/config" is "admitted" by clause "siteless"
    And the sources list "acme/go/config" once

  Scenario: A group listing that never ends stops at once and changes nothing
    Given the index has been built
    And GitLab lists 1 project a page
    And GitLab's group listing names a next page for ever
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the output says "so it would never end"
    When I run `python -m bot.cli index sources --json`
    Then source "acme/go/config" is "admitted" by clause "siteless"

  Scenario: A site seen answering is not asked again while nothing changed
    Given the index has been built
    When the index is built again
    And I run `python -m bot.cli index sources`
    Then the table explains "the site last answered at"
    And the last build asked no docs site

  Scenario: A second build with nothing changed asks each repository once
    Given "acme/go/config" has a release "v0.1.0"
    And the index has been built
    When the index is built again
    Then the exit code is 0
    And the last build made one request to each indexed repository and nothing else about it
    And the last build made one request each for the feed, the listing and the releases

  Scenario: A GitLab that refuses the group's release listing is asked project by project
    Given "acme/handbook" has a release "v1.0"
    And GitLab refuses the group's release listing with 403
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index status --json`
    Then the exit code is 0
    And status of "acme/handbook" names its release "v1.0"
    And "acme/handbook" has no last error

  Scenario: A release listing that never ends is read no further, and each project is asked
    Given "acme/handbook" has a release "v1.0"
    And GitLab leaves the page counts out of its listings
    And GitLab's release listing names its own page as the next for ever
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index status --json`
    Then the exit code is 0
    And status of "acme/handbook" names its release "v1.0"
    And "acme/handbook" has no last error
    And GitLab was asked for 1 page of the group's releases
    And the log says "the release listing of acme names page 1 again after page 1, so it would never end"

  Scenario: A project listed without its web address is asked for its release on its own
    Given "acme/handbook" has a release "v1.0"
    And "acme/go/config" has a release "v0.1.0"
    And GitLab lists "acme/handbook" without its web address
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index status --json`
    Then the exit code is 0
    And status of "acme/handbook" names its release "v1.0"
    And "acme/handbook" has no last error
    And status of "acme/go/config" names its release "v0.1.0"

  Scenario: A release that cannot be looked up keeps unreleased code out of a first build
    Given "acme/go/config" has a release "v0.1.0" whose code declares "LoadSettings"
    And "acme/go/config" has code declaring "ReloadSettings" that no release ships yet
    And GitLab answers 500 when asked for the releases of "acme/go/config"
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index status --json`
    Then the exit code is 0
    And the release error of "acme/go/config" says "its code is left out of the index"
    And the release error of "acme/go/config" says "Run the build again once GitLab can say which release is the latest"
    When I run `python -m bot.cli ask "ReloadSettings" --retrieval-only --json`
    Then no passage contains "ReloadSettings"
    When GitLab names "v0.1.0" as the latest release of "acme/go/config" again
    And the index is built again
    And I run `python -m bot.cli index status --json`
    Then status of "acme/go/config" names its release "v0.1.0"
    When I run `python -m bot.cli ask "LoadSettings" --retrieval-only --json`
    Then a passage contains "LoadSettings" cited at release "v0.1.0" of "acme/go/config"
    And no passage contains "ReloadSettings"

  Scenario: A release that cannot be looked up shows in index sources as in index status
    Given "acme/go/config" has a release "v0.1.0"
    And GitLab answers 500 when asked for the releases of "acme/go/config"
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index sources --json`
    Then the exit code is 0
    And the release error of "acme/go/config" says "the latest release could not be looked up"
    And the release error of "acme/go/config" says "its code is left out of the index"
    And "acme/handbook" has no release error
    When I run `python -m bot.cli index sources`
    Then the exit code is 0
    And below the table, the release lookup of "acme/go/config" says "its code is left out of the index"
    And below the table, the release lookup of "acme/go/config" says "Run the build again once GitLab can say which release is the latest"
    When I run `python -m bot.cli index status`
    Then the exit code is 0
    And below the table, the release lookup of "acme/go/config" says "its code is left out of the index"

  Scenario: A source whose refresh failed shows its last error in index sources as in index status
    Given GitLab answers git with 403
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index sources --json`
    Then the exit code is 0
    And source "acme/handbook" is "admitted" by clause "site"
    And the last error of "acme/handbook" says "lacks the read_repository scope"
    And "acme/tools" has no last error
    When I run `python -m bot.cli index sources`
    Then the exit code is 0
    And below the table, the last error of "acme/handbook" says "lacks the read_repository scope"
    When I run `python -m bot.cli index status`
    Then the exit code is 0
    And below the table, the last error of "acme/handbook" says "lacks the read_repository scope"

  Scenario: A clone that cannot be deleted is reported with what to do, and the build goes on
    Given the index has been built
    And the clone of "acme/infra" is a link to where it was moved
    And the estate feed lists every project except "acme/infra"
    And "acme/handbook" has a new commit
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the output says "the clone of acme/infra at"
    And the output says "could not be deleted (Cannot call rmtree on a symbolic link)"
    And the output says "delete it by hand, or let the user phpbotscout runs delete it"
    And the error does not say "Traceback"
    When I run `python -m bot.cli ask "a new page" --retrieval-only --json`
    Then passage 1 is "News" from "docs/news.md"
    When I run `python -m bot.cli index sources --json`
    Then source "acme/infra" is "rejected" by clause "feed"

  Scenario: Another configuration's clone in a shared clones directory is left alone
    Given the index has been built
    And another configuration has cloned "other/tools" into the same clones directory
    And the estate feed lists every project except "acme/infra"
    When I run `python -m bot.cli index build`
    Then the exit code is 0
    And there is no clone of "acme/infra"
    And the clone of "other/tools" is still there

  Scenario: A clone the build cannot read once fetched fails alone, in the system's words, and keeps its index
    Given the index has been built
    And "acme/handbook" has a new commit
    When the index is built, and the clone of "acme/handbook" becomes unreadable once it is fetched
    Then source "acme/handbook" was "failed"
    And source "acme/infra" was "unchanged"
    When I run `python -m bot.cli index sources --json`
    Then the last error of "acme/handbook" says "cannot be read any more (File name too long), so nothing of it was read this run"
    When I run `python -m bot.cli ask "the handbook manual" --retrieval-only --json`
    Then passage 1 is "handbook" from "docs/index.md"

  Scenario: A clone found damaged once fetched is cloned again and indexed in the same build
    Given the index has been built
    And "acme/handbook" has a new commit
    When the index is built, and the new page in the clone of "acme/handbook" is corrupted once it is fetched
    Then source "acme/handbook" was "indexed"
    And source "acme/infra" was "unchanged"
    When I run `python -m bot.cli ask "a new page" --retrieval-only --json`
    Then passage 1 is "News" from "docs/news.md"

  Scenario: A damaged clone is cloned again within the two transfers from GitLab a build makes at once
    Given the index has been built
    And "acme/handbook" has a new commit
    And "acme/go/config" has a new commit
    And "acme/infra" has a new commit
    When the index is built with the other fetches held open, and the new page in the clone of "acme/handbook" is corrupted once it is fetched
    Then source "acme/handbook" was "indexed"
    And source "acme/infra" was "indexed"
    And the clone of "acme/handbook" was made again
    And no more than two transfers from GitLab were under way at once

  Scenario: A damaged clone GitLab will not clone again fails saying both, and keeps the clone and its index
    Given the index has been built
    And "acme/handbook" has a new commit
    When the index is built, and the new page in the clone of "acme/handbook" is corrupted once it is fetched, and GitLab then refuses git
    Then source "acme/handbook" was "failed"
    And the clone of "acme/handbook" is still there
    When I run `python -m bot.cli index sources --json`
    Then the last error of "acme/handbook" says "is in its object store but corrupt"
    And the last error of "acme/handbook" says "and cloning it again failed too (GitLab forbade git to read the repository (HTTP 403)"
    When I run `python -m bot.cli ask "the handbook manual" --retrieval-only --json`
    Then passage 1 is "handbook" from "docs/index.md"

  Scenario: Index status reports what each source was indexed from
    Given the index has been built
    When I run `python -m bot.cli index status --json`
    Then the exit code is 0
    And status of "acme/handbook" names its default branch "main"

  Scenario: A build beside another process working on the clones leaves its work alone
    Given the index has been built
    And another process is refreshing the clones, with a clone in progress
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the error says "in use by another process"
    And the other process's clone in progress is still there

  Scenario: A clones directory that cannot be used stops the build in one line, and the index answers on
    Given the index has been built
    And a file stands where the clones directory should be
    When I run `python -m bot.cli index build` as a process of its own
    Then the exit code is 1
    And the error says "(index.clones) cannot be used"
    And the error is one line
    When I run `python -m bot.cli index status --json`
    Then the exit code is 0
    And status of "acme/handbook" names its default branch "main"

  Scenario: A malformed project in GitLab's listing is one line that changes nothing
    Given the index has been built
    And GitLab lists the namespace of "acme/tools" as a plain string
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the output says "'namespace' is a str, not an object"
    When I run `python -m bot.cli index sources --json`
    Then source "acme/handbook" is "admitted" by clause "site"

  Scenario Outline: A project id that is not a JSON integer fails the listing and changes nothing
    Given the index has been built
    And GitLab lists the id of "acme/tools" as <id>
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the output says "acme/tools: 'id' is <shape>, not a project id"
    When I run `python -m bot.cli index sources --json`
    Then source "acme/handbook" is "admitted" by clause "site"
    And source "acme/tools" is "rejected" by clause "site"

    Examples:
      | id   | shape   |
      | "7"  | a str   |
      | 2.0  | a float |
      | true | a bool  |

  Scenario: A listing that does not say whether projects are public rejects none of them
    Given the index has been built
    And GitLab lists its projects without saying whether they are public or archived
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the output says "'visibility' is missing or null, not a visibility level"
    When I run `python -m bot.cli index sources --json`
    Then source "acme/handbook" is "admitted" by clause "site"
    And source "acme/secret" is "rejected" by clause "visibility"

  Scenario: A sign-in page answering for GitLab's API says to set gitlab.url.api
    Given the index has been built
    And a sign-in page answers the group listing in GitLab's place
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the output says "is a web page, not JSON"
    And the output says "Set gitlab.url.api to GitLab's API root"
    When I run `python -m bot.cli index sources --json`
    Then source "acme/handbook" is "admitted" by clause "site"

  Scenario: A sign-in page answering for a project's site config leaves the project its index
    Given the index has been built
    And "acme/handbook" has a new commit
    And a sign-in page answers GitLab's file reads in its place
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index sources --json`
    Then source "acme/handbook" is "unresolved" by clause "site"
    When I run `python -m bot.cli index status --json`
    Then source "acme/handbook" still holds passages, its detail saying "answered a web page, not the file"

  Scenario: A GitLab that cannot be reached says what to check, and the index answers on
    Given the index has been built
    And nothing listens where gitlab.url.api points
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the output says "GitLab could not be reached for /groups/acme/projects"
    And the output says "Check gitlab.url.api and that GitLab can be reached from here"
    When I run `python -m bot.cli index sources --json`
    Then source "acme/handbook" is "admitted" by clause "site"

  Scenario: After a failed first listing, index sources says what it said and what to check
    Given nothing listens where gitlab.url.api points
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    When I run `python -m bot.cli index sources`
    Then the exit code is 0
    And the output says "GitLab's listing of acme failed in the last build"
    And the output says "none of its projects is known yet"
    And the output says "GitLab could not be reached for /groups/acme/projects"
    And the output says "check gitlab.url.api (now http://127.0.0.1:"
    And the output does not say "to discover them"

  Scenario: After a failed listing, index sources says the verdicts shown are the ones from before, until a listing works
    Given the index has been built
    And GitLab answers the group listing with 401
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index sources`
    Then the output says "its projects are shown as the last listing that worked decided them"
    And the output says "GITLAB_TOKEN is missing, wrong or expired"
    When I run `python -m bot.cli index sources --json`
    Then source "acme/handbook" is "admitted" by clause "site"
    And the error says "GitLab's listing of acme failed in the last build"
    Given GitLab answers as it should again
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index sources`
    Then the output does not say "listing of acme failed"

  Scenario: index status says the last GitLab listing failed, however fresh each source looks
    Given the index has been built
    And GitLab answers the group listing with 503
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index status`
    Then the exit code is 0
    And the output says "listing failed: GitLab's listing of acme failed in the last build"
    And the output says "its projects are shown as the last listing that worked decided them"
    When I run `python -m bot.cli index status --json`
    Then the status names the failed listing of "acme", which said "503"
    And "acme/handbook" has no last error
    Given GitLab answers as it should again
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index status --json`
    Then the status names no failed listing

  Scenario: A failed listing is still reported after the group is written in other letter case
    Given the index has been built
    And GitLab answers the group listing with 503
    When I run `python -m bot.cli index build`
    Given the configuration writes the group as "ACME"
    When I run `python -m bot.cli index status --json`
    Then the status names the failed listing of "acme", which said "503"

  Scenario: A rate limit stops the build with a clear message
    Given the forge rate-limits every request
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the error says "rate-limited"

  Scenario: A rate limit until a date decades away is not read as a wait
    Given the forge rate-limits every request until the year 2099
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the error says "GitLab asked to wait until 2099-01-01 00:00 UTC, more than a day away"

  Scenario: A token GitLab does not accept says to set or renew GITLAB_TOKEN
    Given GitLab answers the group listing with 401
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the output says "GITLAB_TOKEN is missing, wrong or expired"

  Scenario: A token that may not read the repositories names the scope it lacks
    Given GitLab answers git with 403
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the output says "lacks the read_repository scope"

  Scenario: An SSH key GitLab refuses names the forge's host and says to add the key where it can read the project, and the index answers on
    Given the index has been built
    And clones go over SSH, and GitLab refuses the key
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the output says "the key in index.ssh.key may not read this project"
    And the output says "or as a deploy key of the project"
    When I run `python -m bot.cli index status --json`
    Then source "acme/handbook" still holds passages, its last error saying "GitLab at 127.0.0.1 refused the SSH key"

  Scenario: A GitLab host key that is not pinned says to add the key for that host to index.ssh.known_hosts, and the index answers on
    Given the index has been built
    And clones go over SSH, and no host key is pinned for GitLab
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the output says "Add the forge's host key for 127.0.0.1 to index.ssh.known_hosts"
    When I run `python -m bot.cli index status --json`
    Then source "acme/handbook" still holds passages, its last error saying "Host key verification failed"

  Scenario: A repository that stalls fails quickly with a message naming the stall
    Given the index has been built
    And GitLab's git stops sending anything for longer than git waits
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the output says "the repository stalled"
    When I run `python -m bot.cli index sources --json`
    Then source "acme/handbook" is "admitted" by clause "site"

  Scenario: A build stopped by SIGTERM while git clones ends git at once, and the index answers on
    Given the index has been built
    And GitLab has a new project "acme/gadgets" whose clone never finishes
    When I start `python -m bot.cli index build` and send it SIGTERM while git clones "acme/gadgets"
    Then the exit code is 143
    And the error says "stopped by SIGTERM: the index is as it was before the interrupted step"
    And the error is one line
    And the clone of "acme/gadgets" never finished, and nothing of it is left
    And no git process the build started is left
    When I run `python -m bot.cli index status --json`
    Then the exit code is 0
    And status of "acme/handbook" names its default branch "main"

  Scenario: A feed that lists nothing fails the build and takes nothing away
    Given the index has been built
    And the estate feed lists no project at all
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the output says "The estate feed"
    When I run `python -m bot.cli index sources --json`
    Then source "acme/handbook" is "unresolved" by clause "feed"

  Scenario: A feed larger than any estate is read no further and takes nothing away
    Given the index has been built
    And the estate feed grows past 16 MiB
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the output says "sent more than 16 MiB"
    When I run `python -m bot.cli index sources --json`
    Then source "acme/handbook" is "unresolved" by clause "feed"
