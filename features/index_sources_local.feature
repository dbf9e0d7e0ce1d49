Feature: Explaining which local repositories are indexed
  A moderator or operator asks why a repository is, or is not, in the index.

  Background:
    Given a git repository "widgets" holding "README.md":
      """
      # Widgets

      The widget library.
      """
    And a git repository "secrets" holding "README.md":
      """
      # Secrets

      Never index this.
      """
    And a configuration indexing those repositories
    And the configuration excludes "secrets"

  Scenario: Every repository is listed with its verdict and the clause that decided it
    Given the index has been built
    When I run `python -m bot.cli index sources --json`
    Then the exit code is 0
    And source "widgets" is "admitted" by clause "local"
    And source "secrets" is "rejected" by clause "excluded"

  Scenario: An excluded repository is never read, whatever it holds
    Given the index has been built
    When I run `python -m bot.cli ask "never index this" --retrieval-only --json`
    Then no passage comes from "secrets"

  Scenario: The status shows freshness per indexed repository
    Given the index has been built
    When I run `python -m bot.cli index status --json`
    Then the exit code is 0
    And the status lists "widgets" as fresh

  Scenario: When no repository qualifies, the status points to the reasons
    Given the configuration excludes "widgets"
    And the index has been built
    When I run `python -m bot.cli index status`
    Then the exit code is 0
    And the output says "none qualifies"
    And the output says "python -m bot.cli index sources"

  Scenario: Asking when no repository qualifies points to the reasons, not to another build
    Given the configuration excludes "widgets"
    And the index has been built
    When I run `python -m bot.cli ask "the widget library"`
    Then the exit code is 1
    And the error says "no source that qualifies has anything indexed"
    And the error says "python -m bot.cli index sources"
    And the error does not say "Build it with"

  Scenario: A repository that is no longer there leaves the index on the next build
    Given a git repository "gadgets" holding "README.md":
      """
      # Gadgets

      The gadget library.
      """
    And the index has been built
    And the repository "widgets" is deleted from the estate
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index sources --json`
    Then no source "widgets" is listed
    When I run `python -m bot.cli ask "the widget library" --retrieval-only --json`
    Then the exit code is 0
    And no passage comes from "widgets"
    And a passage comes from "gadgets"

  Scenario: A directory of repositories that cannot be read keeps what it held
    Given the index has been built
    And the estate directory is moved away
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index sources --json`
    Then "estate" is listed as missing, under its name and path
    And source "widgets" is "admitted" by clause "local"
    When I run `python -m bot.cli ask "the widget library" --retrieval-only --json`
    Then the exit code is 0
    And a passage comes from "widgets"

  Scenario: A listed path the system cannot read is unresolved, saying what to do
    Given the index has been built
    And the configuration also lists a path whose name is too long to look up
    When I run `python -m bot.cli index build`
    Then the exit code is 0
    And the output says "cannot be read (File name too long)"
    And the output says "correct the path in sources.local or let the user phpbotscout runs as read it"
    And the error does not say "Traceback"
    When I run `python -m bot.cli ask "the widget library" --retrieval-only --json`
    Then a passage comes from "widgets"

  Scenario: An entry of a directory of repositories the system cannot read is unresolved on its own
    Given the index has been built
    And the estate holds a link to a path whose name is too long to look up
    When I run `python -m bot.cli index build`
    Then the exit code is 0
    And the output says "cannot be read (File name too long)"
    And the output says "let the user phpbotscout runs as read it, or add 'link' to sources.exclude"
    And the error does not say "Traceback"
    When I run `python -m bot.cli index sources --json`
    Then "estate/link" is listed as missing, under its name and path
    And "estate" is not listed as missing
    And source "widgets" is "admitted" by clause "local"

  Scenario: A repository that can no longer be read keeps its index, and the others are still refreshed
    Given a git repository "gadgets" holding "README.md":
      """
      # Gadgets

      The gadget library.
      """
    And the index has been built
    And the repository "widgets" in the estate becomes a link to a path whose name is too long to look up
    And "gadgets" gets a new commit holding "README.md":
      """
      # Gadgets

      Gadgets hum when they are ready.
      """
    When I run `python -m bot.cli index build --json`
    Then the exit code is 0
    And source "gadgets" was "indexed"
    When I run `python -m bot.cli index sources --json`
    Then source "widgets" is "unresolved" by clause "missing"
    And the output says "cannot be read (File name too long)"
    When I run `python -m bot.cli ask "the widget library" --retrieval-only --json`
    Then a passage comes from "widgets"
    When I run `python -m bot.cli ask "what do gadgets do when they are ready" --retrieval-only --json`
    Then a passage comes from "gadgets"

  Scenario: A repository git cannot open is unresolved on its own, saying what to do, and keeps its index
    Given a bare mirror "gadgets.git" in the estate of a repository holding "README.md":
      """
      # Gadgets

      The gadget library.
      """
    And the index has been built
    And the git configuration of "gadgets.git" is not one git can read
    When I run `python -m bot.cli index build`
    Then the exit code is 0
    And the output says "cannot be read by git (File contains no section headers)"
    And the output says "run 'git status' in it to see what is wrong, and repair it, or add 'gadgets' to sources.exclude"
    And the error does not say "Traceback"
    When I run `python -m bot.cli index sources --json`
    Then source "gadgets" is "unresolved" by clause "missing"
    And source "widgets" is "admitted" by clause "local"
    When I run `python -m bot.cli ask "the gadget library" --retrieval-only --json`
    Then a passage comes from "gadgets"

  Scenario: A repository removed after the build admitted it fails alone and keeps its index
    Given a git repository "gadgets" holding "README.md":
      """
      # Gadgets

      The gadget library.
      """
    And the index has been built
    And "gadgets" gets a new commit holding "README.md":
      """
      # Gadgets

      Gadgets hum when they are ready.
      """
    When the index is built, and "widgets" is removed once the build has admitted it
    Then source "widgets" was "failed"
    And source "gadgets" was "indexed"
    And the output says "no longer exists: it changed after discovery admitted it"
    When I run `python -m bot.cli index status --json`
    Then the output says "its last index keeps answering"
    When I run `python -m bot.cli ask "the widget library" --retrieval-only --json`
    Then a passage comes from "widgets"
    When I run `python -m bot.cli ask "what do gadgets do when they are ready" --retrieval-only --json`
    Then a passage comes from "gadgets"

  Scenario: A listed repository that is no longer there keeps its index, and the status says so
    Given the configuration also lists "estate/widgets"
    And the index has been built
    And the repository "widgets" is deleted from the estate
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index status --json`
    Then the status lists "widgets" as "unresolved" by clause "missing"
    When I run `python -m bot.cli index status`
    Then the output says "1 unresolved"
    When I run `python -m bot.cli ask "the widget library" --retrieval-only --json`
    Then a passage comes from "widgets"

  Scenario: A listed path that was never there is in the status, never indexed
    Given the configuration also lists "gone/gadgets"
    And the index has been built
    When I run `python -m bot.cli index status --json`
    Then the status lists "gone/gadgets" as missing, never indexed
    When I run `python -m bot.cli index status`
    Then the output says "1 unresolved"
    And below the table, the unresolved (missing) of "gadgets" says "it has never been indexed, so nothing is answered from it"

  Scenario: A listed path that does not exist never takes the name of a repository indexed
    Given the configuration also lists "gone/widgets"
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index sources --json`
    Then source "widgets" is "admitted" by clause "local"
    And "gone/widgets" is listed as missing, under its name and path
    When I run `python -m bot.cli ask "the widget library" --retrieval-only --json`
    Then a passage comes from "widgets"

  Scenario: An exclusion names a repository whatever the case of its letters
    Given the configuration excludes "WIDGETS"
    When I run `python -m bot.cli index build`
    And I run `python -m bot.cli index sources --json`
    Then source "widgets" is "rejected" by clause "excluded"

  Scenario: A listed path that is not there is excluded, not missing, when its name is excluded
    Given the configuration also lists "gone/gadgets"
    And the configuration excludes "Gadgets"
    When I run `python -m bot.cli index build`
    Then the exit code is 0
    When I run `python -m bot.cli index sources --json`
    Then source "gadgets" is "rejected" by clause "excluded"
    And "gone/gadgets" is not listed as missing

  Scenario: A repository reached through several configured paths is indexed once
    Given the configuration also lists "estate/../estate/widgets/"
    When I run `python -m bot.cli index build`
    Then the exit code is 0
    When I run `python -m bot.cli index sources --json`
    Then source "widgets" is "admitted" by clause "local"
    And no duplicate of "widgets" is listed

  Scenario: Every other repository with an indexed name is explained on its own, by its path
    Given another git repository "widgets" in "shelf"
    And another git repository "widgets" in "attic"
    And the configuration also lists "shelf"
    And the configuration also lists "attic"
    And the index has been built
    When I run `python -m bot.cli index sources --json`
    Then source "widgets" is "admitted" by clause "local"
    And the "widgets" in "shelf" is a duplicate, saying the estate's is the one indexed
    And the "widgets" in "attic" is a duplicate, saying the estate's is the one indexed

  Scenario: A file listed as a source is said to be a file
    Given a file "notes.md" beside the configuration
    And the configuration also lists "notes.md"
    And the index has been built
    When I run `python -m bot.cli index sources --json`
    Then "notes.md" is listed as missing, under its name and path
    And the output says "notes.md is a file, not a repository or a directory of repositories: correct or remove the path in sources.local"

  Scenario: A bare mirror in a configured directory is indexed under its name
    Given a bare mirror "gadgets.git" in the estate of a repository holding "README.md":
      """
      # Gadgets

      Gadgets hum when they are ready.
      """
    And the index has been built
    When I run `python -m bot.cli ask "what do gadgets do when they are ready" --retrieval-only --json`
    Then a passage comes from "gadgets"

  Scenario: A linked worktree is indexed at its own branch, and says how to mend it once its main repository moves
    Given a linked worktree "gadgets" in the estate, on a branch of its own holding "README.md":
      """
      # Gadgets

      Gadgets hum when they are ready.
      """
    And the index has been built
    And the main repository of "gadgets" is moved away
    When I run `python -m bot.cli index build`
    Then the exit code is 0
    And the output says "is a linked worktree whose main repository is no longer at"
    And the output says "run 'git worktree repair"
    And the output says "in the main repository where it is now, or add 'gadgets' to sources.exclude"
    When I run `python -m bot.cli index sources --json`
    Then source "gadgets" is "unresolved" by clause "missing"
    And source "widgets" is "admitted" by clause "local"
    When I run `python -m bot.cli ask "what do gadgets do when they are ready" --retrieval-only --json`
    Then a passage comes from "gadgets"

  Scenario: A submodule's checkout copied out of its superproject says how to mend it
    Given a submodule checkout "gadgets" in the estate, copied out of its superproject
    When I run `python -m bot.cli index build`
    Then the exit code is 0
    And the output says "is a submodule's checkout outside its superproject"
    And the output says "list the checkout where it lies inside its superproject, or a clone of the submodule's own repository"
    When I run `python -m bot.cli index sources --json`
    Then source "gadgets" is "unresolved" by clause "missing"
    And source "widgets" is "admitted" by clause "local"

  Scenario: A repository with nothing committed yet is rejected as empty, and the build succeeds
    Given an empty git repository "fresh" in the estate
    When I run `python -m bot.cli index build`
    Then the exit code is 0
    When I run `python -m bot.cli index sources --json`
    Then source "fresh" is "rejected" by clause "empty"

  Scenario: A repository whose last commit is lost is reported as damaged, with what to do
    Given the index has been built
    And "widgets" loses the object of its last commit
    When I run `python -m bot.cli index build --json`
    Then the exit code is 1
    And source "widgets" was "failed"
    And the output says "is damaged: commit"
    And the output says "is missing from its object store"
    And the output says "Run 'git fsck' in it to see what else is lost, then 'git fetch --refetch' (git 2.36 or later)"

  Scenario: A repository whose new commit is corrupt on disk is told so, not called missing
    Given the index has been built
    And "widgets" gets a new commit holding "README.md":
      """
      # Widgets

      Widgets hum when they are ready.
      """
    And the object of the last commit of "widgets" is corrupt on disk
    When I run `python -m bot.cli index build --json`
    Then the exit code is 1
    And source "widgets" was "failed"
    And the output says "is in its object store but corrupt (loose object"
    And the output says "A fetch stops at it, so cannot repair it"
    And the output says "then clone it again or restore it from a backup"
    And the output does not say "missing from its object store"
    When I run `python -m bot.cli index status --json`
    Then the output says "is in its object store but corrupt"
    When I run `python -m bot.cli ask "the widget library" --retrieval-only --json`
    Then a passage comes from "widgets"

  Scenario: A repository whose new commit this user may not read is told so, not called corrupt
    Given the index has been built
    And "widgets" gets a new commit holding "README.md":
      """
      # Widgets

      Widgets hum when they are ready.
      """
    And the object of the last commit of "widgets" may not be read by this user
    When I run `python -m bot.cli index build --json`
    Then the exit code is 1
    And source "widgets" was "failed"
    And the output says "cannot be read (Permission denied:"
    And the output says "let the user phpbotscout runs as read it"
    And the output does not say "corrupt"
    When I run `python -m bot.cli ask "the widget library" --retrieval-only --json`
    Then a passage comes from "widgets"

  Scenario: A repository another user owns fails saying how git is told to trust it, not to repair it
    Given the index has been built
    And "widgets" belongs to another user than the one phpbotscout runs as
    When I run `python -m bot.cli index build --json`
    Then the exit code is 1
    And source "widgets" was "failed"
    And the output says "cannot be read by git (detected dubious ownership in repository at"
    And the output says "or trust it by running, as that user: git config --global --add safe.directory"
    And the output does not say "repair it"
    When I run `python -m bot.cli ask "the widget library" --retrieval-only --json`
    Then a passage comes from "widgets"

  Scenario: A working tree whose git configuration git cannot parse fails saying so, not as damaged
    Given the index has been built
    And the git configuration of "widgets/.git" is not one git can read
    When I run `python -m bot.cli index build --json`
    Then the exit code is 1
    And source "widgets" was "failed"
    And the output says "cannot be read by git (bad config line 1 in file .git/config)"
    And the output says "run 'git status' in it to see what is wrong, and repair it"
    And the output does not say "object store"
    When I run `python -m bot.cli ask "the widget library" --retrieval-only --json`
    Then a passage comes from "widgets"

  Scenario: A repository whose branch ref cannot be read is unresolved, not emptied, and keeps its index
    Given the index has been built
    And the branch ref of "widgets" is replaced by a directory
    When I run `python -m bot.cli index build`
    Then the exit code is 0
    And the output says "has refs git cannot read (Is a directory"
    And the output says "run 'git status' in it to see what is wrong, and repair it, or add 'widgets' to sources.exclude"
    When I run `python -m bot.cli index sources --json`
    Then source "widgets" is "unresolved" by clause "missing"
    When I run `python -m bot.cli ask "the widget library" --retrieval-only --json`
    Then a passage comes from "widgets"

  Scenario: A repository let back in after an exclusion is indexed again
    Given the configuration no longer excludes "secrets"
    And the index has been built
    And the configuration excludes "secrets"
    And the index has been built
    And the configuration no longer excludes "secrets"
    When I run `python -m bot.cli index build --json`
    Then the exit code is 0
    And source "secrets" was "indexed"
    When I run `python -m bot.cli ask "never index this" --retrieval-only --json`
    Then a passage comes from "secrets"

  Scenario: A refresh interval names its source in any letter case
    Given the configuration sets the refresh interval of "WIDGETS" to "1m"
    And the index has been built
    When I run `python -m bot.cli index sources`
    Then the exit code is 0
    And nothing is said on standard error

  Scenario: A refresh interval for a source that does not exist is named in a warning
    Given the configuration sets the refresh interval of "widgest" to "1m"
    And the index has been built
    When I run `python -m bot.cli index sources`
    Then the exit code is 0
    And the error says "warning: sources.refresh_intervals names 'widgest', but no source is called that (did you mean 'widgets'?)"
    And the error says "Correct the name or remove it."
