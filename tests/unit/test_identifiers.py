from bot.corpus.identifiers import ABBREVIATIONS, search_terms, split_identifier


def test_identifiers_split_on_case_underscores_and_digits():
    assert split_identifier("defaultTakeCount") == ["default", "take", "count"]
    assert split_identifier("HTTPServer") == ["http", "server"]
    assert split_identifier("snake_case") == ["snake", "case"]
    assert split_identifier("Base64Encode") == ["base", "64", "encode"]


def test_an_abbreviated_word_is_followed_by_the_word_it_stands_for():
    assert search_terms("MaxRecvMsgSize") == "max recv receive msg message size"


def test_each_word_is_kept_once_per_chunk():
    assert (
        search_terms("RecvMsg", "SendMsg", "recvBuf") == "recv receive msg message send buf buffer"
    )


def test_plain_words_and_single_word_identifiers_are_left_alone():
    assert search_terms("Format the config") == ""
    assert search_terms("NewClient") == "new client"


def test_every_expansion_is_a_different_lowercase_word():
    for short, long in ABBREVIATIONS.items():
        assert short.islower() and long.islower() and short != long
