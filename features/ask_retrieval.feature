Feature: Asking for the passages that answer a question
  Retrieval is measured on its own: `ask --retrieval-only` prints the ranked passages exactly
  as a model would receive them, each with its citation.

  Background:
    Given a git repository "widgets" holding "zensical.toml":
      """
      [project]
      site_name = "Widgets"
      site_url = "https://widgets.example.org/"
      """
    And a git repository "widgets" holding "docs/guide/tuning.md":
      """
      # Tuning

      Widgets can be tuned.

      ## The frobnicator

      Set the frobnication depth to seven for best results.

      ## Colours

      Widgets come in blue.

      ## Catalogue entries

      Every widget has an entry in the catalogue.

      ## Hidden entries

      A widget marked hidden has no catalogue entry.

      ## Sizes

      Enable large widgets with the size setting.

      ## Turning

      Widgets turn on their axle.
      """
    And a git repository "widgets" holding "docs/guide/storage.md":
      """
      # Storage

      ## Paths and files

      Each widget has a default path and a default file.

      ## Reading settings from a file

      A widget can read its default settings from a file: set `FilePath` to the file path
      in the configuration.
      """
    And a git repository "widgets" holding "docs/guide/overview.md":
      """
      # Overview

      ## Painted widgets

      Widgets can be painted. Read more in [Painting](painting.md).
      """
    And a git repository "widgets" holding "docs/guide/painting.md":
      """
      # Painting

      ## Painting a widget

      Set the paint colour of a widget with `paint.colour`. A widget is painted again the next
      time it is drawn, and a large one can take a few seconds, since each panel is painted on
      its own.
      """
    And a git repository "widgets" holding "README.md":
      """
      # Widgets

      [![Build](https://ci.example.org/widgets.svg)](https://ci.example.org/widgets)
      [![Coverage](https://cov.example.org/widgets.svg)](https://cov.example.org/widgets)

      Widgets is a library of sprockets that mesh.
      """
    And a git repository "widgets" holding "docs/guide/sprockets.md":
      """
      # Sprockets

      ## Meshing sprockets

      A widget's sprockets mesh with those of the widget next to it, a few teeth at a time.
      """
    And a git repository "widgets" holding "docs/guide/removing.md":
      """
      # Removing

      ## Removing a widget

      `widgets remove NAME` asks before it removes anything.

      ## Answering in advance

      Pass `--yes` for scripts: nothing is asked.
      """
    And a configuration indexing those repositories
    And the index has been built

  Scenario: The best passage cites the section on the published site
    When I run `python -m bot.cli ask "what frobnication depth should I use?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "The frobnicator" from "docs/guide/tuning.md"
    And passage 1 cites "https://widgets.example.org/guide/tuning/#the-frobnicator"

  Scenario: An empty question is refused, as ask without --retrieval-only refuses it
    When I run `python -m bot.cli ask "   " --retrieval-only --json`
    Then the exit code is 2
    And the JSON error is of kind "usage" and says "The question is empty"

  Scenario: A reader that stops early, such as head, ends the command quietly
    When I pipe `python -m bot.cli ask "frobnication depth" --retrieval-only` into a reader that has gone
    Then the exit code is 141
    And nothing is said on standard error

  Scenario: Query syntax in a question is only words
    When I run `python -m bot.cli ask 'frobnication" OR col:depth AND (' --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "The frobnicator" from "docs/guide/tuning.md"

  Scenario Outline: A question in other words than the page's still finds it
    When I run `python -m bot.cli ask "<question>" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "<heading>" from "docs/guide/tuning.md"

    Examples:
      | question                            | heading        |
      | how do I hide an entry?             | Hidden entries |
      | can I turn on the size?             | Sizes          |

  Scenario: An identifier in the question is searched by its words together
    When I run `python -m bot.cli ask "can a widget take its default from FilePath?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "Reading settings from a file" from "docs/guide/storage.md"

  Scenario: A word written as a flag is searched, however common it is in prose
    When I run `python -m bot.cli ask "is there a --yes option?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "Answering in advance" from "docs/guide/removing.md"

  Scenario: A word written as a call with its arguments is searched, however common in prose
    Given a git repository "widgets" holding "docs/guide/expressions.md":
      """
      # Expressions

      ## The try function

      `try(first, second)` gives the first of its expressions that can be worked out.

      ## Widget files

      Users keep one setting a line.
      """
    And the index has been built
    When I run `python -m bot.cli ask "how do users write try(a, b)?" --retrieval-only --json`
    Then passage 1 is "The try function" from "docs/guide/expressions.md"

  Scenario: A README's description under its build badges is not a list of links
    When I run `python -m bot.cli ask "what are widgets made of?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "Widgets" from "README.md"

  Scenario: A misspelled identifier is still searched by its words
    When I run `python -m bot.cli ask "what is FilePaht for?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "Reading settings from a file" from "docs/guide/storage.md"

  Scenario: A short section that only points to another page ranks below that page
    When I run `python -m bot.cli ask "how do I paint a widget?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "Painting a widget" from "docs/guide/painting.md"
    And passage 2 is "Painted widgets" from "docs/guide/overview.md"

  Scenario: One section kept in two versions of the documentation takes one place
    Given a git repository "widgets" holding "docs/v2/mounting.md":
      """
      # Mounting

      ## Mounting a widget on a wall

      Mount a widget on a wall with `mount.Wall` from `example.org/widgets/v2`: drill two
      holes, hang the widget, and tighten both screws. Use the plugs from the box for plaster,
      and screws alone for wood.
      """
    And a git repository "widgets" holding "docs/v1/mounting.md":
      """
      # Mounting

      ## Mounting a widget on a wall

      Mount a widget on a wall with `mount.Wall` from `example.org/widgets`: drill two
      holes, hang the widget, and tighten both screws. Use the plugs from the box for plaster,
      and screws alone for wood. No longer kept up.
      """
    And a git repository "widgets" holding "docs/guide/walls.md":
      """
      # Walls

      ## Brackets

      A bracket holds a widget away from a wall it is mounted on, for widgets that need
      air behind them; brackets come in three depths and fit every widget made since the
      first catalogue was printed.
      """
    And the index has been built
    When I run `python -m bot.cli ask "how do I mount a widget on a wall?" --retrieval-only --json`
    Then passage 1 is "Mounting a widget on a wall" from "docs/v2/mounting.md"
    And passage 2 is "Brackets" from "docs/guide/walls.md"

  Scenario: Of two sections that match a question alike, the one whose page is about it comes first
    Given a git repository "widgets" holding "docs/guide/settings.md":
      """
      # Settings

      ## Startup

      To keep tab completion in every new terminal, copy the script into the folder your shell
      reads.

      ## Colours

      Boxes are drawn in the colours of your theme; set `colour = "none"` for plain text.

      ## Sounds

      The bell rings when a long job ends; set `bell = false` in the settings file to silence
      it.

      ## Fonts

      Boxes are drawn with the font of your terminal; a font without box-drawing characters
      shows them as question marks, so pick one that has them.
      """
    And a git repository "widgets" holding "docs/guide/shells.md":
      """
      # Shells

      ## Scripts

      To keep tab completion in every new terminal, copy the script into the folder your shell
      reads at startup.

      ## Generating the script

      `widgets completion bash` prints the tab completion script for bash, and `widgets
      completion zsh` the one for zsh.

      ## Trying it out

      Source the script to have tab completion in the terminal you are in: `source <(widgets
      completion bash)`.
      """
    And the index has been built
    When I run `python -m bot.cli ask "how do I keep tab completion in every new terminal?" --retrieval-only --json`
    Then passage 1 is "Scripts" from "docs/guide/shells.md"
    And passage 2 is "Startup" from "docs/guide/settings.md"

  Scenario: Of two sections that match a question alike, the one it names by its heading comes first
    Given a git repository "widgets" holding "docs/guide/caches.md":
      """
      # Caches

      Widgets remember what they computed, so that asking twice costs once.

      ## Cache policy

      A widget's results are kept for an hour unless it says otherwise. Write `keep = "10m"`
      in the widget's own file for ten minutes, `keep = "forever"` to keep them until the
      widget changes, or `keep = "never"` to compute every result again each time it is asked
      for. A widget that reads the clock should not be kept at all.

      ## Stores

      A store keeps its widgets' results in a cache. Set the cache policy of the store, and the
      cache keeps what the policy says; a store whose cache has no policy set keeps every result.
      """
    And a git repository "widgets" holding "docs/guide/settings.md":
      """
      # Settings

      ## Colours

      Boxes are drawn in the colours of your theme; pick `colour = "none"` for plain text.

      ## Sounds

      The bell rings when a long job ends; turn it off in the settings file to silence it.

      ## Fonts

      Boxes are drawn with the font of your terminal; pick one with box-drawing characters.

      ## Keys

      Every command has a key; the list of keys is printed by `widgets keys`.

      ## Layouts

      Widgets are laid out in rows, or in columns with `layout = "columns"`.
      """
    And the index has been built
    When I run `python -m bot.cli ask "how do I set a cache policy so that a store keeps only some of its results?" --retrieval-only --json`
    Then passage 1 is "Cache policy" from "docs/guide/caches.md"
    And passage 2 is "Stores" from "docs/guide/caches.md"

  Scenario: A section that explains a thing at length ranks above a line that only names it
    Given a git repository "widgets" holding "docs/guide/retries.md":
      """
      # Retries

      ## Backoff

      A widget that slips is tried again. Each try waits longer than the one before, and the
      retry limit caps how many tries there are: once the retry limit is reached the widget is
      reported as stuck. The waits start at one second and double each time, up to a minute.
      The retry limit is five by default; set the retry limit higher for widgets that take long
      to seat, lower for widgets whose failure should be noticed at once. Tries are counted per
      widget, so one slipping widget does not use up the retry limit of the others, and a widget
      that seats resets its count.

      ## Notes

      Every retry is logged, with the retry limit beside it.
      """
    And the index has been built
    When I run `python -m bot.cli ask "what is the retry limit?" --retrieval-only --json`
    Then passage 1 is "Backoff" from "docs/guide/retries.md"
    And passage 2 is "Notes" from "docs/guide/retries.md"

  Scenario: A page saved with a byte-order mark keeps its title, anchor and front matter
    Given a git repository "widgets" holding "docs/guide/gears.md" saved with a byte-order mark:
      """
      # Gears

      Gears mesh in trains of three.
      """
    And a git repository "widgets" holding "docs/guide/axles.md" saved with a byte-order mark:
      """
      ---
      title: Axles
      ---

      Axles carry the turning widgets at their hubs.
      """
    And the index has been built
    When I run `python -m bot.cli ask "gears mesh in trains" --retrieval-only --json`
    Then passage 1 is "Gears" from "docs/guide/gears.md"
    And passage 1 cites "https://widgets.example.org/guide/gears/#gears"
    When I run `python -m bot.cli ask "axles carry widgets at their hubs" --retrieval-only --json`
    Then passage 1 is "Axles" from "docs/guide/axles.md"
    And no passage contains "title:"

  Scenario: An emoji in a heading, shown by the site as an icon, is no part of its anchor
    Given a git repository "widgets" holding "docs/guide/springs.md":
      """
      # Springs

      Springs store the winding of a widget.

      ## :warning: Overwound springs

      A spring wound past its mark snaps when released.
      """
    And the index has been built
    When I run `python -m bot.cli ask "spring wound past its mark" --retrieval-only --json`
    Then passage 1 is ":warning: Overwound springs" from "docs/guide/springs.md"
    And passage 1 cites "https://widgets.example.org/guide/springs/#overwound-springs"

  Scenario: A banner above a page's first heading is no passage of its own
    Given a git repository "widgets" holding "docs/guide/bells.md":
      """
      ---
      title: Bells
      ---

      ![Bells](../images/bells-banner.png)

      ## Ringing

      A bell rings once for every widget finished.
      """
    And the index has been built
    When I run `python -m bot.cli ask "bells" --retrieval-only --json`
    Then passage 1 is "Ringing" from "docs/guide/bells.md"
    And passage 1 cites "https://widgets.example.org/guide/bells/#ringing"

  Scenario: A heading carrying badges and links is shown and cited by its words alone
    Given a git repository "widgets" holding "docs/guide/dials.md":
      """
      # Dials [![stable][stable-badge]][status]

      Dials show how far a widget has turned.

      ## Reading [the scale][scale]

      Each mark on the scale is a tenth of a turn.

      [stable-badge]: https://badges.example.org/stable.svg
      [status]: https://widgets.example.org/status/
      [scale]: https://widgets.example.org/scale/
      """
    And the index has been built
    When I run `python -m bot.cli ask "each mark on the scale" --retrieval-only --json`
    Then passage 1 is "Reading the scale" from "docs/guide/dials.md"
    And passage 1 cites "https://widgets.example.org/guide/dials/#reading-the-scale"
    When I run `python -m bot.cli ask "what do dials show?" --retrieval-only --json`
    Then passage 1 is "Dials" from "docs/guide/dials.md"
    And passage 1 cites "https://widgets.example.org/guide/dials/#dials"

  Scenario: A long section written as one line is never cut into its heading alone
    Given a git repository "glossary" whose "docs/glossary.md" has a section "Terms" written as one long line
    And the index has been built
    When I run `python -m bot.cli ask "glossary terms" --retrieval-only --json`
    Then the exit code is 0
    And every passage from "docs/glossary.md" holds words under its heading

  Scenario: A question with no words finds nothing
    When I run `python -m bot.cli ask "?!? ..." --retrieval-only --json`
    Then the exit code is 0
    And there are no passages

  Scenario: Without a model the passages are shown with a notice
    When I run `python -m bot.cli ask "what frobnication depth should I use?"`
    Then the exit code is 0
    And the output says "No model is configured"
    And the output says "these are the passages an answer would be composed from, in the order the model would read them"
    And the output says "https://widgets.example.org/guide/tuning/#the-frobnicator"

  Scenario: Escape sequences in the documentation are shown, never sent to the terminal
    Given a git repository "tricks" whose "docs/trick.md" retitles the terminal and hides text
    And the index has been built
    When I run `python -m bot.cli ask "what does the trick do?" --retrieval-only`
    Then the exit code is 0
    And no control character reaches the terminal
    And the output says "Tuning trick \x1b]0;pwned\x07"
    And the output says "\x1b[8mhidden\x1b[0m"

  Scenario: Direction overrides in the documentation are shown, never allowed to reorder it
    Given a git repository "tricks" whose "docs/trick.md" has a heading reversed in part
    And the index has been built
    When I run `python -m bot.cli ask "what does the trick do?" --retrieval-only`
    Then the exit code is 0
    And no control character reaches the terminal
    And the output says "Reversing \u202etrick\u202c"

  Scenario: Hidden text in the documentation is shown as escapes, as Discord shows it
    Given a git repository "tricks" whose "docs/trick.md" has a heading carrying hidden text
    And the index has been built
    When I run `python -m bot.cli ask "what does the trick do?" --retrieval-only`
    Then the exit code is 0
    And no control character reaches the terminal
    And the output says "Hidden\u2060note \U000e0041\U000e0042"

  Scenario: The log shows a repository's escapes and direction overrides, never sends them
    Given a git repository whose name reverses part of it and retitles the terminal
    When I run `python -m bot.cli -v index build` as a process of its own
    Then the exit code is 0
    And no control character reaches the terminal
    And the error says "refreshed tricks\u2067\u202eexe.\u202c\u2069\x1b]0;pwned\x07: indexed"

  Scenario: A line break in a repository's name never starts a log line of its own
    Given a git repository whose name breaks the line to forge a log line
    When I run `python -m bot.cli -v index build` as a process of its own
    Then the exit code is 0
    And no log line is forged
    And the error says "refreshed tricks\x0aWARNING bot.refresh: forged: indexed"

  Scenario: Escape sequences in the documentation stay escaped in JSON
    Given a git repository "tricks" whose "docs/trick.md" retitles the terminal and hides text
    And the index has been built
    When I run `python -m bot.cli ask "what does the trick do?" --retrieval-only --json`
    Then the exit code is 0
    And no control character reaches the terminal
    And passage 1 holds the escape sequences as they were written

  Scenario: An install without the library that ranks passages says how to install it
    Given the library that ranks passages is not installed
    When I run `python -m bot.cli ask "frobnication depth" --retrieval-only`
    Then the exit code is 1
    And the error says "the process that ranks passages cannot start"
    And the error says "Install phpbotscout's dependencies with '.venv/bin/pip install -e .'"

  Scenario: An index that was never built is refused with how to build it
    Given the index file is removed
    When I run `python -m bot.cli ask "frobnication depth"`
    Then the exit code is 1
    And the error says "python -m bot.cli index build"
