from dataclasses import dataclass

from bot.index.selection import named_sources, select, text_key, without_names


@dataclass(frozen=True)
class P:
    chunk_id: int
    document_id: int
    text: str
    repo: str = "r"
    symbol: str = ""
    path: str = "diagnostic.go"
    heading: str = ""

    @property
    def text_key(self) -> str:
        return text_key(self.text)


def test_no_document_takes_more_than_two_slots():
    results = [P(i, 1, f"entry {i}") for i in range(5)] + [P(9, 2, "other")]
    chosen = select([], results, limit=8, named_slots=6)
    assert [p.chunk_id for p in chosen] == [0, 1, 9]


def test_in_code_the_unit_is_a_type_with_its_methods():
    results = [
        P(1, 7, "a", symbol="Map.Lookup"),
        P(2, 7, "b", symbol="Map.Update"),
        P(3, 7, "c", symbol="Map"),
        P(4, 7, "d", symbol="ErrKeyNotExist"),
    ]
    chosen = select([], results, limit=8, named_slots=6)
    assert [p.chunk_id for p in chosen] == [1, 2, 4]


def test_a_type_the_question_names_with_its_package_takes_up_to_four_slots_with_its_methods():
    from bot.index.symbols import WrittenNames

    results = [P(i, 7, f"m{i}", repo="hcl", symbol=f"Diagnostics.M{i}") for i in range(6)]
    results += [P(9, 7, "x", repo="hcl", symbol="DiagWarning")]

    def chosen(question: str) -> list[int]:
        written = WrittenNames.of(question)
        return [p.chunk_id for p in select([], results, 8, 6, written=written)]

    assert chosen("`hcl.Diagnostics` has only warnings") == [0, 1, 2, 3, 9]
    # Not as code, or not with its package (a variable's `diags.Diagnostics`): two slots.
    assert chosen("hcl diagnostics has only warnings") == [0, 1, 9]
    assert chosen("`Diagnostics` has only warnings") == [0, 1, 9]
    assert chosen("`diags.Diagnostics` has only warnings") == [0, 1, 9]


def test_the_same_text_twice_takes_one_slot():
    results = [P(1, 1, "same  text\n"), P(2, 2, "same text"), P(3, 3, "different")]
    assert [p.chunk_id for p in select([], results, 8, 6)] == [1, 3]


# A section of 20 distinct words, the fewest two copies may hold, and its versions.
PRECEDENCE = (
    "A flag given on the command line wins over an environment variable, which wins over "
    "the config file and then the default value applies"
)


def test_one_section_kept_in_two_versions_of_the_docs_takes_one_slot():
    v2 = PRECEDENCE + " in github.com/acme/cli/v2."
    v1 = PRECEDENCE.upper() + " in github.com/acme/cli."  # words are compared in any case
    results = [
        P(1, 1, v2, heading="Precedence", path="docs/v2/flags.md"),
        P(2, 2, v1, heading="Precedence", path="docs/v1/flags.md"),
        P(3, 3, "Values can come from a file instead.", heading="Values from files"),
    ]
    assert [p.chunk_id for p in select([], results, 8, 6)] == [1, 3]


def test_copies_are_one_section_from_four_fifths_of_their_words_shared():
    base = PRECEDENCE.split()  # 20 distinct words among 24
    four_fifths = " ".join([*base, "alpha", "beta", "gamma", "delta", "epsilon"])  # 20 of 25
    below = " ".join([*base, "alpha", "beta", "gamma", "delta", "epsilon", "zeta"])  # 20 of 26
    for other, joined in ((four_fifths, True), (below, False)):
        results = [P(1, 1, PRECEDENCE, heading="Precedence"), P(2, 2, other, heading="Precedence")]
        chosen = [p.chunk_id for p in select([], results, 8, 6)]
        assert chosen == ([1] if joined else [1, 2])


def test_alike_passages_are_one_section_only_under_one_heading_of_one_source():
    text = PRECEDENCE + "."
    short = "Install it with `go get github.com/acme/kit/retry`."
    results = [
        P(1, 1, text, heading="Precedence"),
        P(2, 2, text + " Flags first.", heading="Precedence", repo="other"),
        P(3, 3, text + " Files last.", heading="Order"),
        P(4, 4, "Flags set on the command line are parsed first.", heading="Precedence"),
        P(5, 1, text + " Flags win.", heading="Precedence"),  # a part of the first's section
        # Few words shared by their form alone: two packages' installation, not one section.
        P(6, 6, short, heading="Installation"),
        P(7, 7, short.replace("retry", "cache"), heading="Installation"),
    ]
    assert [p.chunk_id for p in select([], results, 8, 6)] == [1, 2, 3, 4, 5, 6, 7]


def test_one_method_on_many_types_takes_one_slot():
    results = [
        P(1, 1, "TakesValue returns true", symbol="BoolFlag.TakesValue"),
        P(2, 2, "TakesValue returns true", symbol="PathFlag.TakesValue"),
        P(3, 3, "x", symbol="PathFlag.Apply"),
        P(4, 4, "y", repo="other", symbol="BoolFlag.TakesValue"),
    ]
    assert [p.chunk_id for p in select([], results, 8, 6)] == [1, 3, 4]


def test_named_slots_come_first_then_the_full_question_then_named_again():
    named = [P(i, 100 + i, f"named {i}") for i in range(10)]
    general = [P(50 + i, 200 + i, f"general {i}") for i in range(3)]
    chosen = select(named, general, limit=8, named_slots=3)
    assert [p.chunk_id for p in chosen] == [0, 1, 2, 50, 51, 52, 3, 4]


def test_a_source_is_named_by_its_words_in_order():
    names = ["urfave-cli", "go-cty", "cobra", "group/go/config"]
    assert named_sources("urfave cli v2: flags from files?", names) == ["urfave-cli"]
    assert named_sources("Cobra hooks", names) == ["cobra"]
    assert named_sources("cli urfave", names) == []
    assert named_sources("how does config precedence work in group/go/config", names) == [
        "group/go/config"
    ]


def test_names_are_removed_from_the_question_for_the_named_search():
    assert without_names("How do urfave-cli flags work in urfave cli", ["urfave-cli"]) == (
        "How do flags work in"
    )
    assert without_names("Cobra: how do hooks work?", ["cobra"]) == "how do hooks work"
    assert without_names("hooks in urfave cli", ["urfave-cli"]) == "hooks in"
    assert named_sources("hooks in cobra", ["cobra"]) == ["cobra"]


def test_a_forge_source_is_also_named_by_its_path_below_the_group():
    names = ["acme/go/config", "acme/widgets"]
    assert named_sources("precedence in go/config?", names) == ["acme/go/config"]
    assert named_sources("widgets tuning", names) == ["acme/widgets"]
    assert without_names("precedence in go/config", ["acme/go/config"]) == "precedence in"
