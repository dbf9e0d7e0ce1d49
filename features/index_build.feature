Feature: Building the index from local repositories
  An operator points phpbotscout at git repositories on disk and builds the index that
  questions are answered from.

  Background:
    Given a git repository "widgets" holding "docs/guide.md":
      """
      # Widget guide

      ## Tuning the frobnicator

      Set frobnication depth to seven.
      """
    And a configuration indexing those repositories

  Scenario: A first build indexes every repository
    When I run `python -m bot.cli index build --json`
    Then the exit code is 0
    And source "widgets" was "indexed"

  Scenario: A second build with nothing changed reads nothing
    Given the index has been built
    When I run `python -m bot.cli index build --json`
    Then the exit code is 0
    And source "widgets" was "unchanged"

  Scenario: A rebuild leaves the search indexes merged
    Given the index has been built
    When I run `python -m bot.cli index build --force --json`
    Then the exit code is 0
    And source "widgets" was "indexed"
    And the search indexes have nothing left to merge

  Scenario: A moved commit is re-indexed
    Given the index has been built
    And a git repository "widgets" holding "docs/more.md":
      """
      # More

      Sprockets.
      """
    When I run `python -m bot.cli index build --json`
    Then source "widgets" was "indexed"

  Scenario: The JSON names the sources not indexed and why, as the table does
    Given a git repository "gamma" holding "README.md":
      """
      # Gamma
      """
    And the configuration excludes "gamma"
    When I run `python -m bot.cli index build --json`
    Then the exit code is 0
    And source "widgets" was "indexed"
    And "gamma" is not indexed: "rejected" by "excluded"

  Scenario: Refreshing a source that does not exist is a usage error
    When I run `python -m bot.cli index build --source nope`
    Then the exit code is 2
    And the error says "No source called nope"

  Scenario: After a source name that does not exist, index sources lists the sources there are
    When I run `python -m bot.cli index build --source nope`
    Then the exit code is 2
    And the error says "Run 'python -m bot.cli index sources' to see them all"
    When I run `python -m bot.cli index sources`
    Then the exit code is 0
    And the output says "widgets"

  Scenario: A source is named in any letter case, and shown under its own name
    Given a git repository "gamma" holding "README.md":
      """
      # Gamma
      """
    When I run `python -m bot.cli index build --source WIDGETS --json`
    Then the exit code is 0
    And the build refreshed only "widgets"

  Scenario: Two sources called apart by letter case alone are told apart by the exact spelling
    Given a git repository "Tools" holding "README.md":
      """
      # Tools
      """
    And a git repository "tools" holding "README.md":
      """
      # tools
      """
    When I run `python -m bot.cli index build --source TOOLS`
    Then the exit code is 2
    And the error says "More than one source is called TOOLS (Tools, tools), in letter case alone. Give the name spelled exactly as 'python -m bot.cli index sources' shows it."
    When I run `python -m bot.cli index build --source tools --json`
    Then the exit code is 0
    And the build refreshed only "tools"

  Scenario: Refreshing a source that is excluded says it is not indexed, and why
    Given a git repository "gamma" holding "README.md":
      """
      # Gamma
      """
    And the configuration excludes "gamma"
    When I run `python -m bot.cli index build --source gamma`
    Then the exit code is 2
    And the error says "gamma is not indexed: rejected (excluded): listed in sources.exclude"

  Scenario: Commands that only read create no index at a mistyped path
    Given the index has been built
    And the configuration's index path is changed to "indx.sqlite"
    When I run `python -m bot.cli index status`
    Then the exit code is 0
    And the output says "No index exists at"
    And the output says "indx.sqlite yet. Build it with 'python -m bot.cli index build'"
    When I run `python -m bot.cli ask "frobnication depth" --retrieval-only --json`
    Then the exit code is 1
    And the JSON error is of kind "empty_index" and says "check index.path in"
    And there is no file "indx.sqlite"

  Scenario: An index made by another version is refused, and kept
    Given the index has been built
    And the index file lacks the column "text_key" of "chunks"
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the error says "lacks chunks.text_key"
    And the error says "python -m bot.cli index build"
    And the index file still lacks the column "text_key" of "chunks"

  Scenario: A damaged index is reported with how to recover, not as a crash
    Given the index has been built
    And a page of the index's word search is overwritten with garbage
    When I run `python -m bot.cli ask "frobnication depth" --retrieval-only --json`
    Then the exit code is 1
    And the JSON error is of kind "index" and says "move it aside"

  Scenario: A database that is not an index is refused, and left as it was
    Given the index path holds another program's SQLite database
    When I run `python -m bot.cli index build`
    Then the exit code is 1
    And the error says "not a phpbotscout index"
    And the other program's database is unchanged


  Scenario: Two commands opening a new index file at once both use it
    When two commands open a new index file at once, one migrating it while the other waits
    Then the one that waited opens it with every migration applied once

  Scenario: An index path that names a directory is refused in one line saying to name a file
    Given the configuration's index path is changed to "indexes"
    And a directory "indexes"
    When I run `python -m bot.cli index build` as a process of its own
    Then the exit code is 1
    And the error says "index.path names a directory"
    And the error says "Set index.path to a file path"
    And the error is one line

  Scenario: An index path below a file is refused in one line naming that file
    Given the configuration's index path is changed to "notes/index.sqlite"
    And a file "notes"
    When I run `python -m bot.cli index build` as a process of its own
    Then the exit code is 1
    And the error says "A parent of index.path"
    And the error says "notes, is a file, not a directory"
    And the error says "Set index.path to a path whose parents are directories"
    And the error is one line

  Scenario: A build stopped by SIGTERM says so in one line, and the previous index answers on
    Given the index has been built
    And "widgets" has 400 pages more, committed
    When I start `python -m bot.cli index build` and send it SIGTERM while it writes
    Then the exit code is 143
    And the error says "stopped by SIGTERM: the index is as it was before the interrupted step"
    And the error is one line
    And the index holds what the last build wrote, and nothing more

  Scenario: A command stopped by SIGTERM while it starts says so in one line
    Given the index has been built
    When I start `python -m bot.cli index status` and send it SIGTERM while it reads its configuration
    Then the exit code is 143
    And the error says "stopped by SIGTERM: the index is as it was before the interrupted step"
    And the error is one line
