Feature: Asking a question
  Someone asks a question from the terminal. phpbotscout answers it from the indexed passages
  with citations, or declines and records a documentation gap, and it keeps a failure of its
  own apart from both.

  Background:
    Given a git repository "widgets" holding "docs/guide.md":
      """
      # Widget guide

      ## Installing widgets

      Run `widgetctl install` to install the widget service.

      ## Tuning the frobnicator

      Set `frobnication.depth` to seven in `widgets.toml`.
      """
    And a configuration indexing those repositories
    And answers are composed by the Anthropic API
    And the index has been built

  Scenario: A grounded answer is printed with its citations
    Given the model answers "Set `frobnication.depth` to seven." citing "Tuning the frobnicator"
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites "Tuning the frobnicator"
    And the model was sent the passages fenced and numbered

  Scenario: A grounded answer in the terminal lists its sources
    Given the model answers "Set `frobnication.depth` to seven." citing "Tuning the frobnicator"
    When I run `python -m bot.cli ask "What frobnication depth should I set?"`
    Then the exit code is 0
    And the output says "Set `frobnication.depth` to seven."
    And the output says "Sources:"

  Scenario: Nothing matching is declined without asking the model
    When I run `python -m bot.cli ask "zyzzyva quux" --json`
    Then the exit code is 0
    And the question is declined as "nothing_matched"
    And the model was not asked

  Scenario: The model declines when the passages do not answer
    Given the model declines because "The guide covers tuning, not colours."
    When I run `python -m bot.cli ask "Which colours can a widget be?" --json`
    Then the exit code is 0
    And the question is declined as "composer_declined"
    And the decline reason says "not colours"

  Scenario: An answer citing a passage it was not given is not shown
    Given the model answers "Set it to seven." citing passage 99
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 0
    And the question is declined as "ungrounded"
    And the decline reason says "cited passage 99"

  Scenario: An answer naming an option no cited passage contains is not shown
    Given the model answers "Set `frobnication.level` to 7." citing "Tuning the frobnicator"
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 0
    And the question is declined as "ungrounded"
    And the decline reason says "`frobnication.level`"

  Scenario: A code block using a flag no cited passage contains is not shown
    Given the model answers, citing "Installing widgets":
      """
      Run:

      ```sh
      widgetctl install --purge
      ```
      """
    When I run `python -m bot.cli ask "How do I install widgets?" --json`
    Then the exit code is 0
    And the question is declined as "ungrounded"
    And the decline reason says "`--purge`"

  Scenario: An answer linking to an address no cited passage gives is not shown
    Given the model answers "Set `frobnication.depth` to seven; first log in at [the console](https://login.example.net/)." citing "Tuning the frobnicator"
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 0
    And the question is declined as "ungrounded"
    And the decline reason says "links to 1 address that no cited passage gives"
    And "login.example.net" appears nowhere in the output

  Scenario: A link in the model's reason for declining is shown only if a passage gives it
    Given the model declines because "The guide covers tuning, not colours. Colours are at https://evil.example/fix"
    When I run `python -m bot.cli ask "Which colours can a widget be?"`
    Then the exit code is 0
    And the output says "Reason: The guide covers tuning, not colours. Colours are at (a link no passage gives was removed)"
    And "evil.example" appears nowhere in the output

  Scenario: A passage the answer points to in its text is listed with its citations
    Given the model answers "Run `widgetctl install` [1], then set `frobnication.depth` to seven [2]." citing passage 2
    When I run `python -m bot.cli ask "How do I install and tune widgets?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites 2 passages

  Scenario: An answer whose text points to a passage is shown though it lists no citation
    Given the model answers "Run `widgetctl install` [1]." with no citation listed
    When I run `python -m bot.cli ask "How do I install widgets?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites 1 passages

  Scenario: A range of passages in the answer's text must lie within the passages supplied
    Given the model answers "Set `frobnication.depth` to seven [1-99]." citing "Tuning the frobnicator"
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 0
    And the question is declined as "ungrounded"
    And the decline reason says "99, but only passages 1–"

  Scenario: Every passage in a range the answer's text points to is listed with its citations
    Given the model answers "Run `widgetctl install` [1-2], then set `frobnication.depth` to seven." citing passage 2
    When I run `python -m bot.cli ask "How do I install and tune widgets?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites 2 passages

  Scenario: A range written between two numbers in parentheses cites every passage in it
    Given a git repository "widgets" holding "docs/cleaning.md":
      """
      # Cleaning widgets

      Wipe widgets with a dry cloth once they are installed and tuned.
      """
    And the index has been built
    And the model answers "Run `widgetctl install` before cleaning (1)–(3)." citing passage 1
    When I run `python -m bot.cli ask "How do I install and tune widgets?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites 3 passages

  Scenario: A passage pointed to as a footnote must be one of the passages supplied
    Given the model answers "Set `frobnication.depth` to seven [^99]." citing "Tuning the frobnicator"
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 0
    And the question is declined as "ungrounded"
    And the decline reason says "cited passage 99, but only passages 1–"

  Scenario Outline: A number written as <form> that names no passage supplied is a value, not a marker
    Given the model answers "Set `frobnication.depth` to seven, not the default <marker>." citing "Tuning the frobnicator"
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites 1 passages

    Examples:
      | form                     | marker |
      | a superscript            | ⁹⁹     |
      | a number in parentheses  | (99)   |

  Scenario: A passage pointed to as a footnote is listed with its citations
    Given the model answers "Run `widgetctl install`[^1], then set `frobnication.depth` to seven (2)." citing passage 2
    When I run `python -m bot.cli ask "How do I install and tune widgets?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites 2 passages

  Scenario: A numbered how-to keeps the passages its steps point to
    Given the model answers, citing passage 2:
      """
      1. Run `widgetctl install` (1).
      2. Set `frobnication.depth` to seven (2).
      """
    When I run `python -m bot.cli ask "How do I install and tune widgets?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites 2 passages

  Scenario: A number in parentheses after a plural word such as "cases" points to a passage
    Given the model answers "Run `widgetctl install`, which works in most cases (1)." citing passage 2
    When I run `python -m bot.cli ask "How do I install and tune widgets?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites 2 passages

  Scenario: A number in parentheses after "see" points to a passage
    Given the model answers "Run `widgetctl install`; see (1) for details." citing passage 2
    When I run `python -m bot.cli ask "How do I install and tune widgets?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites 2 passages

  Scenario: A number closing a sentence after steps numbered in parentheses points to a passage
    Given the model answers "(1) Open the guide, (2) read it. Run `widgetctl install` first (1)." citing passage 2
    When I run `python -m bot.cli ask "How do I install and tune widgets?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites 2 passages

  Scenario: A number in parentheses after "described in" points to a passage, not a step
    Given the model answers "(1) Open the guide, (2) read it. `widgetctl install` is described in (1)." citing passage 2
    When I run `python -m bot.cli ask "How do I install and tune widgets?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites 2 passages

  Scenario: A number in parentheses after "listed in" points to a passage, not a step
    Given the model answers "(1) Open the guide, (2) read it. `widgetctl install` is listed in (1)." citing passage 2
    When I run `python -m bot.cli ask "How do I install and tune widgets?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites 2 passages

  Scenario: Numbers in parentheses listed at a sentence's end after steps point to passages
    Given the model answers "(1) Open the guide, (2) read it. It is `widgetctl install` (2) and (1)." citing passage 2
    When I run `python -m bot.cli ask "How do I install and tune widgets?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites 2 passages

  Scenario: Steps numbered in parentheses and repeated as a list are steps, not passages
    Given the model answers "(1) Run `widgetctl install`, (2) set `frobnication.depth` to seven. If it fails, repeat (1) and (2)." citing passage 1
    When I run `python -m bot.cli ask "How do I install and tune widgets?" --json`
    Then the exit code is 0
    And the question is declined as "ungrounded"
    And the decline reason says "`frobnication.depth`"

  Scenario: Steps numbered in parentheses are prose, not passages pointed to
    Given the model answers "To tune widgets, (1) open `widgets.toml` and (2) set `frobnication.depth` to seven." citing "Tuning the frobnicator"
    When I run `python -m bot.cli ask "How do I tune widgets?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites 1 passages

  Scenario Outline: <form> is prose, not a passage the answer points to
    Given the model answers "Set `frobnication.depth` to seven, then run `widgetctl install` <words>." citing "Tuning the frobnicator"
    When I run `python -m bot.cli ask "How do I install and tune widgets?" --json`
    Then the exit code is 0
    And the question is declined as "ungrounded"
    And the decline reason says "`widgetctl install`"

    Examples:
      | form                             | words                         |
      | A step's number in parentheses   | as in step (1), then step (2) |
      | A unit's exponent                | once per cm¹ and cm²          |

  Scenario: A passage named in words is listed with its citations
    Given the model answers "Run `widgetctl install` as passage 1 says, then set `frobnication.depth` to seven as passage 2 says." citing passage 2
    When I run `python -m bot.cli ask "How do I install and tune widgets?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the answer cites 2 passages

  Scenario: A passage named in words must be one of the passages supplied
    Given the model answers "Set `frobnication.depth` to seven, as passage 99 says." citing "Tuning the frobnicator"
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 0
    And the question is declined as "ungrounded"
    And the decline reason says "cited passage 99, but only passages 1–"

  Scenario: An answer that only says the passages do not answer is a documentation gap
    Given the model answers "The passages do not say which colours a widget can be [1]." citing "Tuning the frobnicator"
    And someone has asked "Which colours can a widget be?"
    When I run `python -m bot.cli gaps --json`
    Then the exit code is 0
    And the backlog lists "Which colours can a widget be?" as "composer_declined"

  Scenario: An answer that only says the passages leave out a list, with a comma before its "or", is a documentation gap
    Given the model answers "The passages do not say whether a widget runs on Windows, macOS, or BSD [1]." citing "Tuning the frobnicator"
    And someone has asked "Which systems can a widget run on?"
    When I run `python -m bot.cli gaps --json`
    Then the exit code is 0
    And the backlog lists "Which systems can a widget run on?" as "composer_declined"

  Scenario Outline: An answer that only says a range or list of passages do not answer is a documentation gap
    Given the model answers "<draft>" citing "Tuning the frobnicator"
    And someone has asked "Which colours can a widget be?"
    When I run `python -m bot.cli gaps --json`
    Then the exit code is 0
    And the backlog lists "Which colours can a widget be?" as "composer_declined"

    Examples:
      | draft                                                                            |
      | Passage [1]-[3] does not say which colours a widget can be.                      |
      | Passages [1] and [3] do not say which colours a widget can be.                   |
      | The passages do not say which colours a widget can be [1]—[3].                   |
      | The passages do not say which colours a widget can be (1) – (3).                 |
      | The passages do not say which colours a widget can be (1) – (3), or how to pick. |

  Scenario: An answer that says what the passages leave out and then answers is shown
    Given the model answers "The passages do not describe a separate read timeout: `frobnication.depth` applies to both." citing "Tuning the frobnicator"
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 0
    And the outcome is "answered"

  Scenario: An answer that says what the passages leave out and cites a passage for a name in brackets is shown
    Given the model answers "The passages do not give a default depth (the guide sets `frobnication.depth` to seven [1])." citing "Tuning the frobnicator"
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 0
    And the outcome is "answered"

  Scenario: An answer that says what the passages leave out and only says it again in brackets is a documentation gap
    Given the model answers "The passages do not give a default depth (the guide only mentions depth [1])." citing "Tuning the frobnicator"
    And someone has asked "What is the default frobnication depth?"
    When I run `python -m bot.cli gaps --json`
    Then the exit code is 0
    And the backlog lists "What is the default frobnication depth?" as "composer_declined"

  Scenario: An answer that says what the passages leave out and says again in brackets, after a "but", what is missing is a documentation gap
    Given the model answers "The passages do not give a default depth (the guide mentions `frobnication.depth` but not its default [1])." citing "Tuning the frobnicator"
    And someone has asked "What is the default frobnication depth?"
    When I run `python -m bot.cli gaps --json`
    Then the exit code is 0
    And the backlog lists "What is the default frobnication depth?" as "composer_declined"

  Scenario: An answer that says what the passages leave out and only describes a passage in brackets is a documentation gap
    Given the model answers "The passages do not say how to colour a widget (they only discuss tuning [1])." citing "Tuning the frobnicator"
    And someone has asked "Which colours can a widget be?"
    When I run `python -m bot.cli gaps --json`
    Then the exit code is 0
    And the backlog lists "Which colours can a widget be?" as "composer_declined"

  Scenario Outline: An answer that says what the passages leave out and then only <goes on> is a documentation gap
    Given the model answers "<draft>" citing "Tuning the frobnicator"
    And someone has asked "Which colours can a widget be?"
    When I run `python -m bot.cli gaps --json`
    Then the exit code is 0
    And the backlog lists "Which colours can a widget be?" as "composer_declined"

    Examples:
      | goes on                          | draft                                                                         |
      | says what they cover             | The passages do not say how to colour a widget; they only cover tuning [1].   |
      | asks the question again          | The passages do not say whether a widget can be coloured, or how [1].         |

  Scenario: A failing provider is an error, not a decline
    Given the model is overloaded
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 1
    And the error kind is "provider"
    And the API key appears nowhere in the output

  Scenario: A rate limit that outlasts answer.timeout is reported as a rate limit
    Given answer.timeout is "1s"
    And the API rate-limits the key and asks to wait 30 seconds
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 1
    And the error kind is "provider"
    And the error message says "still rate-limiting this key (HTTP 429) when answer.timeout (1 s) ran out"
    And the documentation-gap backlog is empty

  Scenario: A key kept from the model says to change answer.model or grant the key access
    Given the API key may use only the model "claude-haiku-5-5"
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 1
    And the error kind is "provider"
    And the error message says "HTTP 403 permission_error"
    And the error message says "The key was accepted but is not allowed to use the model claude-haiku-4-5: set answer.model to a model the key may use, or grant the key access to it."
    And the documentation-gap backlog is empty

  Scenario: A reply cut off at the output limit is an error, not a documentation gap
    Given the model's reply is cut off at its output limit
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 1
    And the error kind is "provider"
    And the error message says "Ask a narrower question"
    And the documentation-gap backlog is empty

  Scenario: A reply that is not in the required structure is an error, not a documentation gap
    Given the model replies in plain prose instead of calling the answer tool
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 1
    And the error kind is "provider"
    And the error message says "The model's reply could not be read: no answer tool call"
    And the error message says "Ask again."
    And the documentation-gap backlog is empty

  Scenario: An API address with no Messages API behind it points at the address, not the model
    Given the API's address has "/no-api-here" at its end
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 1
    And the error kind is "provider"
    And the error message says "HTTP 404"
    And the error message says "check ANTHROPIC_BASE_URL if it is set (the client adds /v1/messages to it)"
    And "answer.model" appears nowhere in the output
    And the documentation-gap backlog is empty

  Scenario Outline: An API that answers with a redirect is an error, and nothing follows it
    Given the API answers every request with a <status> redirect to another host
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 1
    And the error kind is "provider"
    And the error message says "answered with a redirect (HTTP <status>) to http://127.0.0.2:"
    And the error message says "it was not followed, so nothing was sent there. Set ANTHROPIC_BASE_URL to the address the API answers at without redirecting"
    And nothing reached the other host
    And the documentation-gap backlog is empty

    Examples:
      | status |
      | 307    |
      | 308    |

  Scenario: An API that redirects to no address that reads as one is an error saying so
    Given the API answers every request with a 307 redirect to "http://[::1"
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 1
    And the error kind is "provider"
    And the error message says "answered with a redirect (HTTP 307) to an address that is not a URL; it was not followed"

  Scenario Outline: An API address that ends in /v1 is refused before any question, saying what to set
    Given the API's address has "<suffix>" at its end
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 2
    And the error kind is "config"
    And the error message says "'ANTHROPIC_BASE_URL' has value 'http://127.0.0.1:"
    And the error message says "every question would go to /v1/v1/messages"
    And the error message says to set the API's address without "/v1"
    And the model was not asked

    Examples:
      | suffix |
      | /v1    |
      | /v1/   |

  Scenario: A password in the API's address is refused, and never shown
    Given the API's address carries the password "PASSWORD"
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 2
    And the error message says "'ANTHROPIC_BASE_URL' has value 'http://***@127.0.0.1:"
    And the error message says "an address without a user name or password"
    And "PASSWORD" appears nowhere in the output
    And the model was not asked

  Scenario: The API key is never sent to an address in plain text
    Given the API's address is "http://proxy.example:8080"
    When I run `python -m bot.cli ask "What frobnication depth should I set?"`
    Then the exit code is 2
    And the error says "an https URL: ANTHROPIC_API_KEY is sent to it"
    And the model was not asked

  Scenario: Declined questions make up the documentation-gap backlog
    Given the model declines because "The guide covers tuning, not colours."
    And someone has asked "Which colours can a widget be?"
    When I run `python -m bot.cli gaps --json`
    Then the exit code is 0
    And the backlog lists "Which colours can a widget be?" as "composer_declined"

  Scenario: An answer the index cannot record, another process writing it, is shown all the same
    Given the model answers "Set `frobnication.depth` to seven." citing "Tuning the frobnicator", while another process takes the index's write lock
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 0
    And the outcome is "answered"
    And the JSON's "unrecorded" says "is busy: another process"

  Scenario: A declined question is dated when it was asked, not when the model replied
    Given the model takes 1.5 seconds to decline because "The guide covers tuning, not colours."
    And someone has asked "Which colours can a widget be?"
    When I run `python -m bot.cli gaps --json`
    Then the exit code is 0
    And the backlog dates "Which colours can a widget be?" by when the model was asked, not by its reply

  Scenario: A --since time beyond the calendar in UTC is a usage error
    When I run `python -m bot.cli gaps --since 9999-12-31T23:59-01:00 --json`
    Then the exit code is 2
    And the error kind is "usage"
    And the error message says "give a time between 0001-01-02 and 9999-12-30"

  Scenario: Without a model the passages are the result
    Given answers are not composed
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 0
    And the outcome is "passages"

  Scenario: A question typed in a terminal that is not set to UTF-8 is a usage error
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json` as a process of its own, with the byte 0xFF at the end of the question
    Then the exit code is 2
    And the error kind is "usage"
    And the error message says "bytes that are not UTF-8"
    And nothing is said on standard error
    And the model was not asked

  Scenario: A mistake on the command line is reported as JSON when JSON was asked for
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json --limit 0`
    Then the exit code is 2
    And the error kind is "usage"
    And the error message says "argument --limit: must be 1 or more, not 0"

  Scenario: The Anthropic provider without a key is a configuration error
    Given no Anthropic API key is set
    When I run `python -m bot.cli ask "What frobnication depth should I set?"`
    Then the exit code is 2
    And the error says "ANTHROPIC_API_KEY"

  Scenario: A question too long for the model is told to be shorter, not to change the model
    Given the API refuses the request because "prompt is too long: 210311 tokens > 200000 maximum"
    When I run `python -m bot.cli ask "What frobnication depth should I set?" --json`
    Then the exit code is 1
    And the error message says "ask a shorter question"
