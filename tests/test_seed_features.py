"""The seeds' features: long sentences (seed 001 §3) and feature codes (seed 000 §3–4)."""

from __future__ import annotations

from scrapy_dedup import feature_code as fc
from scrapy_dedup import long_sentence as ls
from scrapy_dedup.text import normalize, sentences, units

ZH = [
    "五月的清晨，山路上还挂着露水，六十多名孩子已经早早来到学校门口，等待着他们的第一座图书馆正式开放。",
    "这座图书馆由一间闲置的教室改造而成，书架、桌椅和三千多册图书都来自社会各界的捐赠，其中不少是志愿者从城里背上山的。",
    "校长李老师告诉记者，过去孩子们能读到的只有课本，很多学生从来没有完整地读过一本故事书，现在每周都安排了两节阅读课。",
    "据了解，当地教育部门计划在明年底之前，为全县所有的村级小学都建起图书角，并定期组织图书交换活动。",
]
ZH_OTHER = [
    "昨天下午，全市中小学同时开展了防汛应急演练，数万名学生在老师的带领下有序撤离到安全区域。",
    "市教育局有关负责人表示，此次演练旨在提高师生的安全意识，检验学校应急预案的可操作性和有效性。",
    "演练结束后，各校还组织学生观看了防汛知识宣传片，并布置了与家长共同完成的安全作业。",
]
EN = [
    "When the river rose above its banks in April, the water reached the second floor of the old mill "
    "in Easton within a single night, and it took three weeks before the last street was dry again.",
    "Residents have since formed a committee that meets every Thursday in the school gym, where engineers "
    "explain the plans for a new levee and families sign up for repair grants.",
    "The county approved a budget of twelve million dollars for the levee, which will be built in two "
    "phases; the first, along the northern bank, should be finished before the autumn rains.",
]
EN_OTHER = [
    "The city council voted on Tuesday to extend the evening bus routes to the industrial park, after a "
    "petition signed by more than two thousand workers who finish their shifts late at night.",
    "Drivers will be hired over the summer, and the new timetable should be published in September, "
    "together with a map of the stops that will be added along the ring road.",
]


def test_normalisation_makes_full_width_and_half_width_one() -> None:
    assert normalize("Ｈｅｌｌｏ，ＷＯＲＬＤ！") == normalize("hello,world!")
    assert sentences("甲乙丙丁戊己庚辛，壬癸子丑寅卯辰巳。") == sentences(
        "甲乙丙丁戊己庚辛,壬癸子丑寅卯辰巳."
    )


def test_units_count_cjk_characters_and_words() -> None:
    assert units("该算法对网页进行去杂处理") == 12  # the seed's own example: 12 characters
    assert units("the water reached the second floor") == 6


def test_long_sentences_keep_the_m_longest_of_at_least_k_units() -> None:
    features = ls.long_sentences("".join(ZH))
    assert 0 < len(features.sentences) <= ls.M
    assert all(units(s) >= ls.K for s in features.sentences)
    lengths = [units(s) for s in features.sentences]
    assert lengths == sorted(lengths, reverse=True)
    assert len(ls.long_sentences("".join(ZH), m=3).digests) == 3
    short = ls.long_sentences("短句，也短，很短。")
    assert short.digests == frozenset()


def test_long_sentences_match_a_reprint_with_a_source_line_and_full_width_changes() -> None:
    original = ls.long_sentences("\n".join(ZH))
    reprint_text = "来源：示例日报 编辑：张三\n" + "\n".join(ZH).replace("，", ",")
    comparison = ls.compare(original, ls.long_sentences(reprint_text))
    assert comparison.duplicate
    assert comparison.score >= 0.9
    assert comparison.shared  # evidence: the sentences both pages have


def test_long_sentences_tell_different_articles_apart() -> None:
    for one, other in ((ZH, ZH_OTHER), (EN, EN_OTHER)):
        comparison = ls.compare(ls.long_sentences("\n".join(one)), ls.long_sentences("\n".join(other)))
        assert not comparison.duplicate
        assert comparison.score == 0.0 and comparison.shared == ()


def test_long_sentences_work_on_english_without_a_segmenter() -> None:
    original = ls.long_sentences("\n".join(EN))
    assert len(original.digests) >= 5  # clauses of 8+ words
    assert ls.compare(original, ls.long_sentences("\n".join(EN).upper())).duplicate


def test_feature_code_main_and_auxiliary_codes() -> None:
    code = fc.feature_code(ZH)
    assert code.main == "五这校据"
    assert len(code.aux) == 4
    assert all(len(aux) <= fc.N for aux in code.aux)
    assert code.aux[0] == "晨水口"  # the characters before the first three punctuation marks
    assert code.bucket == int(code.text_length / 4) // fc.BUCKET


def test_feature_code_rules() -> None:
    original = fc.feature_code(ZH)
    assert fc.compare(original, fc.feature_code(list(ZH))).rule == "main_equal"

    partial = fc.compare(original, fc.feature_code(ZH[:3]))  # the last paragraph cut
    assert partial.duplicate and partial.rule == "subset" and partial.shared_paragraphs == 3

    # Equal main codes decide alone (seed 000 §3.2 rule 1), even with one paragraph edited.
    edited = list(ZH)
    edited[1] = edited[1].replace("改造而成，", "改建而来，")
    assert fc.compare(original, fc.feature_code(edited)).rule == "main_equal"

    # Other text whose paragraphs happen to start with the same characters: the main code
    # is a subset, and the auxiliary codes tell the pages apart.
    lookalike = ["五一假期，景区游客人数创下新高，交通部门提前发布了出行提示。",
                 "这次活动吸引了大量市民参加，现场气氛热烈，秩序井然。",
                 "校园开放日当天，家长们参观了实验室，体验了科学课程。"]  # fmt: skip
    collision = fc.compare(original, fc.feature_code(lookalike))
    assert collision.rule == "subset" and not collision.duplicate and collision.score < fc.AUX_AGREE

    different = fc.compare(original, fc.feature_code(ZH_OTHER))
    assert not different.duplicate and different.rule == "small_intersection"
    assert not fc.compare(fc.feature_code(EN), fc.feature_code(EN_OTHER)).duplicate
    assert fc.compare(fc.feature_code([]), original).rule == "empty"
