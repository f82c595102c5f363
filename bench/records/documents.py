"""The typed shapes of every document (``bench/records/schemas``), written by ``python -m
bench.records.generate``: do not edit by hand; change the schema and run it again."""

# ruff: noqa: E501
from __future__ import annotations

import sys
from typing import Any, Literal, TypedDict

if sys.version_info >= (3, 11):
    from typing import NotRequired
else:
    from typing_extensions import NotRequired


# --- arrange.schema.json

class ArrangeDocument(TypedDict):
    "One line of bench arrange --json: how a bot set one hand. The hand's randomness is SeedSequence(seed, spawn_key=(hand_index,))."
    schema_version: Literal[2]
    document: Literal['arrange']
    line: int | None
    hand: str
    arrangement: ArrangeArrangement
    rows: ArrangeDocumentRows
    foul: bool
    foul_reason: str | None
    natural: Literal['dragon', 'four trips', 'three straights', 'six pairs', 'three flushes'] | None
    bot: str
    bot_params: dict[str, Any]
    rules: ArrangeRules
    seed: int
    hand_index: int
    seconds: float
    bot_identity: NotRequired[dict[str, Any]]


class ArrangeArrangement(TypedDict):
    "an arrangement: each row's cards in reading order"
    front: str
    middle: str
    back: str


class ArrangeDocumentRows(TypedDict):
    front: ArrangeDocumentRowsFront
    middle: ArrangeDocumentRowsMiddle
    back: ArrangeDocumentRowsBack


class ArrangeDocumentRowsFront(TypedDict):
    hand: str


class ArrangeDocumentRowsMiddle(TypedDict):
    hand: str


class ArrangeDocumentRowsBack(TypedDict):
    hand: str


class ArrangeRules(TypedDict):
    "the rule set (solver.rules.Rules.to_dict)"
    name: str
    scoring: Literal['basic', '1-6', '2-4']
    royalties: list[ArrangeRulesRoyaltiesItem]
    royalty_needs_win: bool
    naturals: bool
    natural_payouts: dict[str, int]


class ArrangeRulesRoyaltiesItem(TypedDict):
    row: Literal['front', 'middle', 'back']
    category: str
    units: int


# --- bots.schema.json

class BotsDocument(TypedDict):
    "bench bots --json: every registered and plug-in bot with its description and parameters."
    schema_version: Literal[1]
    document: Literal['bots']
    bots: list[BotsDocumentBotsItem]


class BotsDocumentBotsItem(TypedDict):
    name: str
    description: str
    parameters: dict[str, Any]


# --- exploit.schema.json

class ExploitDocument(TypedDict):
    "A bot's exploitability bounded from both sides (docs/performance.md#exploitability): on random hands, the exhaustive bot's best response is compared with the bot's own play against opponents who play the bot. Its mean gain per hand and opponent on opponents dealt apart from those that chose it (gain"
    schema_version: Literal[2]
    document: Literal['exploit']
    bot: str
    best_response: str
    rules: ExploitRules
    seed: int
    hand_count: int
    requested_hand_count: int
    sample_count: int
    eval_sample_count: int
    pooled: NotRequired[bool]
    pool_share: NotRequired[ExploitDocumentPoolShare]
    gain: float | None
    gain_se: float | None
    ci95: list[float] | None
    lower95: float | None
    upper95: float | None
    in_sample_gain: float | None
    in_sample_gain_se: float | None
    exploitability95: list[float] | None
    same_play_share: float | None
    differing_hand_count: int
    one_sided_z: float
    largest_gains: list[ExploitDocumentLargestGainsItem]
    command: str | None
    stopped: str | None
    seconds: float
    bot_identity: NotRequired[dict[str, Any]]


class ExploitRules(TypedDict):
    "the rule set (solver.rules.Rules.to_dict)"
    name: str
    scoring: Literal['basic', '1-6', '2-4']
    royalties: list[ExploitRulesRoyaltiesItem]
    royalty_needs_win: bool
    naturals: bool
    natural_payouts: dict[str, int]


class ExploitRulesRoyaltiesItem(TypedDict):
    row: Literal['front', 'middle', 'back']
    category: str
    units: int


class ExploitDocumentPoolShare(TypedDict):
    "a pooled run: of the in-sample and of the held-out gain's standard error squared, the share added for the pools (the held-out gain's takes the choosing pool's part too); it counts each hand's own sampling noise a second time, so it overstates what the hands share; null where there is no standard err"
    in_sample: float | None
    held_out: float | None


class ExploitDocumentLargestGainsItem(TypedDict):
    hand_index: int
    hand: str
    gain: float
    in_sample_gain: float
    bot_play: ExploitPlay
    best_play: ExploitPlay
    bot_natural: NotRequired[Literal['dragon', 'four trips', 'six pairs', 'three flushes', 'three straights']]
    best_natural: NotRequired[Literal['dragon', 'four trips', 'six pairs', 'three flushes', 'three straights']]


class ExploitPlay(TypedDict):
    front: str
    middle: str
    back: str


# --- exploit-journal.schema.json

class ExploitJournalHeader(TypedDict):
    schema_version: Literal[1]
    document: Literal['exploit-journal-header']
    run: str
    seq: Literal[0]
    settings: ExploitJournalSettings
    hand_count: int
    identity: ExploitJournalIdentity
    check: str


class ExploitJournalSettings(TypedDict):
    bot: str
    rules: ExploitJournalRules
    rules_text: str
    seed: int
    sample_count: int
    eval_sample_count: int
    pooled: NotRequired[bool]


class ExploitJournalRules(TypedDict):
    "the rule set (solver.rules.Rules.to_dict)"
    name: str
    scoring: Literal['basic', '1-6', '2-4']
    royalties: list[ExploitJournalRulesRoyaltiesItem]
    royalty_needs_win: bool
    naturals: bool
    natural_payouts: dict[str, int]


class ExploitJournalRulesRoyaltiesItem(TypedDict):
    row: Literal['front', 'middle', 'back']
    category: str
    units: int


class ExploitJournalIdentity(TypedDict):
    package: ExploitJournalIdentityPackage
    bot: ExploitJournalBot


class ExploitJournalIdentityPackage(TypedDict):
    name: str
    version: str | None
    commit: str | None
    dirty: bool | None
    changes: NotRequired[str]


ExploitJournalBot = TypedDict('ExploitJournalBot', {'spec': 'str', 'name': 'str', 'class': 'str | None', 'params': 'dict[str, Any]', 'version': 'str | None', 'identity': 'dict[str, Any] | None', 'sha256_by_file': 'dict[str, str]', 'replayable': 'NotRequired[bool]'})


class ExploitJournalEntry(TypedDict):
    schema_version: Literal[1]
    document: Literal['exploit-journal-entry']
    run: str
    seq: int
    hand_index: int
    hand: str
    bot_play: ExploitJournalPlay
    best_play: ExploitJournalPlay
    bot_natural: NotRequired[Literal['dragon', 'four trips', 'six pairs', 'three flushes', 'three straights']]
    best_natural: NotRequired[Literal['dragon', 'four trips', 'six pairs', 'three flushes', 'three straights']]
    same: bool
    gain: float
    in_sample_gain: float
    check: str


class ExploitJournalPlay(TypedDict):
    front: str
    middle: str
    back: str


ExploitJournalDocument = ExploitJournalHeader | ExploitJournalEntry


# --- grade.schema.json

class GradeDocument(TypedDict):
    "bench grade --json: every graded hand of a file, worst first, the malformed lines, and the seed with the rule that gives each hand its seed."
    schema_version: Literal[3]
    document: Literal['grade']
    hand_count: int
    lost_total: float
    hands: list[GradeDocumentHandsItem]
    malformed_line_count: int
    malformed_lines: list[GradeDocumentMalformedLinesItem]
    seed: int
    seed_rule: str
    sample_count: int
    opponent: str
    player_count: int
    rules: GradeRules
    opponent_identity: NotRequired[dict[str, Any]]


class GradeDocumentHandsItem(TypedDict):
    line: int
    hand: str
    arrangement: GradeArrangement | None
    declared: NotRequired[bool]
    foul: bool
    foul_reason: str | None
    ev: float
    best: GradeDocumentHandsItemBest
    diff: float
    diff_se: float | None
    lost: float
    natural: NotRequired[str | None]
    natural_ev: NotRequired[float | None]
    declare: NotRequired[bool]
    verdict: NotRequired[Literal['best', 'fine', 'inaccuracy', 'mistake', 'blunder']]
    why: NotRequired[list[str]]
    decision: NotRequired[Literal['naturals', 'flush or straight in back', 'splitting two pair', 'where the pair goes', "the front's kicker", 'the other kickers', 'same as the best play']]
    rows: GradeDocumentHandsItemRows | None
    sample_count: int
    seed: int
    opponent: str
    player_count: int
    rules: GradeRules


class GradeArrangement(TypedDict):
    "an arrangement: each row's cards in reading order"
    front: str
    middle: str
    back: str


class GradeDocumentHandsItemBest(TypedDict):
    arrangement: GradeArrangement
    ev: float
    ev_se: float | None
    rows: GradeRowResults


class GradeRowResults(TypedDict):
    front: GradeRowResultsFront
    middle: GradeRowResultsMiddle
    back: GradeRowResultsBack


class GradeRowResultsFront(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float


class GradeRowResultsMiddle(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float


class GradeRowResultsBack(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float


class GradeDocumentHandsItemRows(TypedDict):
    front: GradeDocumentHandsItemRowsFront
    middle: GradeDocumentHandsItemRowsMiddle
    back: GradeDocumentHandsItemRowsBack


class GradeDocumentHandsItemRowsFront(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float
    best_cards: str
    best_hand: str
    ev_diff: float


class GradeDocumentHandsItemRowsMiddle(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float
    best_cards: str
    best_hand: str
    ev_diff: float


class GradeDocumentHandsItemRowsBack(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float
    best_cards: str
    best_hand: str
    ev_diff: float


class GradeRules(TypedDict):
    "the rule set (solver.rules.Rules.to_dict)"
    name: str
    scoring: Literal['basic', '1-6', '2-4']
    royalties: list[GradeRulesRoyaltiesItem]
    royalty_needs_win: bool
    naturals: bool
    natural_payouts: dict[str, int]


class GradeRulesRoyaltiesItem(TypedDict):
    row: Literal['front', 'middle', 'back']
    category: str
    units: int


class GradeDocumentMalformedLinesItem(TypedDict):
    line: int
    error: str


# --- hand-grade.schema.json

class HandGradeDocument(TypedDict):
    "A player's arrangement of one hand (or the natural they declared) against the best play on the same simulated opponents: solve --grade --json, and the web API's POST /api/grade."
    schema_version: Literal[3]
    document: Literal['hand-grade']
    hand: str
    arrangement: HandGradeArrangement | None
    declared: NotRequired[bool]
    foul: bool
    foul_reason: str | None
    ev: float
    best: HandGradeDocumentBest
    diff: float
    diff_se: float | None
    lost: float
    natural: NotRequired[str | None]
    natural_ev: NotRequired[float | None]
    declare: NotRequired[bool]
    verdict: NotRequired[Literal['best', 'fine', 'inaccuracy', 'mistake', 'blunder']]
    why: NotRequired[list[str]]
    decision: NotRequired[Literal['naturals', 'flush or straight in back', 'splitting two pair', 'where the pair goes', "the front's kicker", 'the other kickers', 'same as the best play']]
    rows: HandGradeDocumentRows | None
    sample_count: int
    seed: int
    opponent: str
    player_count: int
    rules: HandGradeRules
    opponent_identity: NotRequired[dict[str, Any]]


class HandGradeArrangement(TypedDict):
    "an arrangement: each row's cards in reading order"
    front: str
    middle: str
    back: str


class HandGradeDocumentBest(TypedDict):
    arrangement: HandGradeArrangement
    ev: float
    ev_se: float | None
    rows: HandGradeRowResults


class HandGradeRowResults(TypedDict):
    front: HandGradeRowResultsFront
    middle: HandGradeRowResultsMiddle
    back: HandGradeRowResultsBack


class HandGradeRowResultsFront(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float


class HandGradeRowResultsMiddle(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float


class HandGradeRowResultsBack(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float


class HandGradeDocumentRows(TypedDict):
    front: HandGradeDocumentRowsFront
    middle: HandGradeDocumentRowsMiddle
    back: HandGradeDocumentRowsBack


class HandGradeDocumentRowsFront(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float
    best_cards: str
    best_hand: str
    ev_diff: float


class HandGradeDocumentRowsMiddle(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float
    best_cards: str
    best_hand: str
    ev_diff: float


class HandGradeDocumentRowsBack(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float
    best_cards: str
    best_hand: str
    ev_diff: float


class HandGradeRules(TypedDict):
    "the rule set (solver.rules.Rules.to_dict)"
    name: str
    scoring: Literal['basic', '1-6', '2-4']
    royalties: list[HandGradeRulesRoyaltiesItem]
    royalty_needs_win: bool
    naturals: bool
    natural_payouts: dict[str, int]


class HandGradeRulesRoyaltiesItem(TypedDict):
    row: Literal['front', 'middle', 'back']
    category: str
    units: int


# --- journal.schema.json

class JournalHeader(TypedDict):
    schema_version: Literal[3]
    document: Literal['journal-header']
    run: str
    seq: Literal[0]
    settings: JournalSettings
    identity: JournalIdentity
    check: str


class JournalSettings(TypedDict):
    bots: list[str]
    player_count: int
    session_count: int
    seed: int
    rules: dict[str, Any]
    decision_timeout: float | None
    on_fault: Literal['stop', 'foul']
    command: str
    field: NotRequired[JournalField]


class JournalField(TypedDict):
    bot: str
    sample_count: int


class JournalIdentity(TypedDict):
    package: JournalIdentityPackage
    bots: list[JournalBot]


class JournalIdentityPackage(TypedDict):
    name: str
    version: str | None
    commit: str | None
    dirty: bool | None
    changes: NotRequired[str]


JournalBot = TypedDict('JournalBot', {'spec': 'str', 'name': 'str', 'class': 'str | None', 'params': 'dict[str, Any]', 'version': 'str | None', 'identity': 'dict[str, Any] | None', 'sha256_by_file': 'dict[str, str]', 'replayable': 'NotRequired[bool]'})


class JournalEntry(TypedDict):
    schema_version: Literal[3]
    document: Literal['journal-entry']
    run: str
    seq: int
    deals: list[int]
    records: list[JournalRecord]
    check: str


class JournalRecord(TypedDict):
    deal: int
    dealer: int
    hands: list[str]
    plays: list[list[JournalPlay]]


class JournalPlay(TypedDict):
    arrangement: JournalRows | None
    values: list[int]
    foul: bool
    foul_reason: str | None
    seconds: float
    fault: NotRequired[str]
    natural: NotRequired[JournalPlayNatural]


class JournalRows(TypedDict):
    front: str
    middle: str
    back: str


class JournalPlayNatural(TypedDict):
    kind: str
    key: list[int]


JournalDocument = JournalHeader | JournalEntry


# --- match.schema.json

class MatchDocument(TypedDict):
    "A heads-up match of bot A against bot B decided by SPRT (docs/match.md): the estimator that gives each deal's outcome, the test's settings, its decision, and A's mean advantage per deal over the deals looked at. Numbers that cannot be computed (the standard error of one deal) are null."
    schema_version: Literal[2]
    document: Literal['match']
    a: str
    b: str
    rules: MatchRules
    seed: int
    max_deal_count: int
    look_deal_count: int
    estimator: MatchDocumentEstimator
    decision: Literal['H0', 'H1', 'alike', 'none']
    verdict: str | None
    no_evidence: str | None
    stopped: str | None
    deal_count: int
    llr: float
    bounds: list[float]
    h0: float
    h1: float
    alpha: float
    beta: float
    mean: float | None
    se: float | None
    ci95: list[float | None]
    duplicate: MatchDocumentDuplicate
    variance_ratio: float | None
    bot_identities: NotRequired[list[dict[str, Any]] | None]


class MatchRules(TypedDict):
    "the rule set (solver.rules.Rules.to_dict)"
    name: str
    scoring: Literal['basic', '1-6', '2-4']
    royalties: list[MatchRulesRoyaltiesItem]
    royalty_needs_win: bool
    naturals: bool
    natural_payouts: dict[str, int]


class MatchRulesRoyaltiesItem(TypedDict):
    row: Literal['front', 'middle', 'back']
    category: str
    units: int


class MatchDocumentEstimator(TypedDict):
    "what a deal's outcome is (docs/match.md): the field estimator (both plays of each hand scored against the same simulated opponents, set by the field bot) or duplicate results"
    name: Literal['field', 'duplicate']
    field: str | None
    samples: int | None
    minimum_deal_count: int


class MatchDocumentDuplicate(TypedDict):
    "the duplicate results of the same deals (under either estimator)"
    mean: float | None
    se: float | None


# --- perf.schema.json

class PerfDocument(TypedDict):
    "The report of `bench perf` (perf.json): every figure of the benchmark suite, each timed with the yardstick (bench/analysis/_yardstick.py) between its rounds in the same run; `yardsticks` is the figure's median time over the yardstick's median."
    schema_version: Literal[1]
    document: Literal['perf']
    seed: int
    command: str
    run: PerfDocumentRun
    machine: PerfDocumentMachine
    yardstick: PerfDocumentYardstick
    evaluator: PerfDocumentEvaluator
    all_splits: list[PerfDocumentAllSplitsItem]
    solves: list[PerfDocumentSolvesItem]
    bots: list[PerfDocumentBotsItem]
    tournament_fields: list[PerfDocumentTournamentFieldsItem]
    startup: PerfDocumentStartup | None
    protocol: PerfRate | None
    solve_command: PerfDocumentSolveCommand | None
    goals: list[PerfDocumentGoalsItem]


class PerfDocumentRun(TypedDict):
    datetime: str | None
    commit: str | None


class PerfDocumentMachine(TypedDict):
    cpu: str | None
    core_count: int | None
    python: str | None
    numpy: str | None
    numba: str | None


class PerfDocumentYardstick(TypedDict):
    kernel: str
    median_ms: float | None
    numpy_sort_ms: float | None


class PerfDocumentEvaluator(TypedDict):
    one_core: PerfRate | None
    all_cores: PerfRate | None
    baselines: list[PerfDocumentEvaluatorBaselinesItem]


class PerfRate(TypedDict):
    per_second: float
    per_yardstick: float | None
    yardstick_ms: float | None


class PerfDocumentEvaluatorBaselinesItem(TypedDict):
    name: str
    version: str | None
    per_second: float
    per_yardstick: float | None
    yardstick_ms: float | None
    ratio: float | None


class PerfDocumentAllSplitsItem(TypedDict):
    scan: Literal['canonical', 'full']
    ms_per_hand: float
    yardsticks_per_hand: float


class PerfDocumentSolvesItem(TypedDict):
    rules: str
    sample_count: int
    hand_count: int
    median_ms: float
    yardstick_ms: float | None
    yardsticks: float | None
    deal_ms: float
    arrange_ms: float
    score_ms: float
    ev_se: float
    diff_se: float | None
    ev_se_root_ms: float | None
    diff_se_root_ms: float | None
    ev_se_root_yardsticks: float | None
    diff_se_root_yardsticks: float | None


class PerfDocumentBotsItem(TypedDict):
    bot: str
    median_ms: NotRequired[float]
    yardstick_ms: NotRequired[float | None]
    yardsticks: NotRequired[float | None]
    p95_ms: NotRequired[float | None]
    batch_ms_per_hand: NotRequired[float | None]
    batch_yardsticks_per_hand: NotRequired[float | None]
    batch_one_core_ms_per_hand: NotRequired[float | None]
    batch_one_core_yardsticks_per_hand: NotRequired[float | None]


class PerfDocumentTournamentFieldsItem(TypedDict):
    field: str
    deals_per_second: float
    hands_per_second: float
    median_ms: float
    yardstick_ms: float | None
    yardsticks: float | None


class PerfDocumentStartup(TypedDict):
    cold_wall_s: float
    cold_first_calls_s: float
    warm_wall_s: float
    warm_first_calls_s: float
    yardstick_ms: NotRequired[float | None]
    yardsticks: NotRequired[float | None]


class PerfDocumentSolveCommand(TypedDict):
    cold_s: float
    warm_s: float
    yardsticks: float | None
    yardstick_ms: float | None


class PerfDocumentGoalsItem(TypedDict):
    figure: str
    median_ms: float | None
    yardsticks: float | None
    goal_yardsticks: float | None


# --- results.schema.json

class ResultsDocument(TypedDict):
    "A tournament's settings, provenance, summary, timing and every deal's record. bench report recomputes the summary from the records, after checking the file against this schema and against itself (docs/json.md, Run documents)."
    schema_version: Literal[3]
    document: Literal['results']
    command: str
    rules: str | dict[str, Any]
    bots: list[ResultsBot]
    player_count: int
    session_count: int
    hands_per_session: int
    seed: int
    on_fault: NotRequired[Literal['stop', 'foul']]
    decision_timeout: NotRequired[float]
    version_by_package: dict[str, str | None]
    git_commit: str | None
    machine: ResultsDocumentMachine
    results: ResultsResults
    field: NotRequired[ResultsField]
    timing: ResultsTiming
    partial: NotRequired[ResultsDocumentPartial]
    records: list[ResultsRecord]


ResultsBot = TypedDict('ResultsBot', {'name': 'str', 'spec': 'str', 'bot': 'str', 'params': 'dict[str, Any]', 'class': 'str | None', 'package': 'str | None', 'package_version': 'str | None', 'identity': 'dict[str, Any] | None', 'sha256_by_file': 'NotRequired[dict[str, str]]', 'replayable': 'NotRequired[bool]'})


class ResultsDocumentMachine(TypedDict):
    platform: str
    processor: str
    cpu_count: int | None


class ResultsResults(TypedDict):
    "The summary bench report computes again from the records."
    deal_count: int
    complete_session_count: int
    seatings: list[list[str]]
    played_hand_count: int
    zero_sum: bool
    by_bot: dict[str, ResultsBotResults]
    crosstable: dict[str, dict[str, ResultsEstimate]]


class ResultsBotResults(TypedDict):
    units_per_hand: ResultsEstimate
    session_win_share: float | None
    row_win_rate: ResultsBotResultsRowWinRate
    foul_rate: float | None
    scoop_rate: float | None
    natural_pairing_count: int
    variance_reduction: float | None
    fault_count: int
    first_faults: list[ResultsBotResultsFirstFaultsItem]


class ResultsEstimate(TypedDict):
    mean: float | None
    se: float | None
    n: int
    ci95: list[float | None]
    significant: NotRequired[bool]
    same_arrangement: NotRequired[float | None]


class ResultsBotResultsRowWinRate(TypedDict):
    front: float | None
    middle: float | None
    back: float | None


class ResultsBotResultsFirstFaultsItem(TypedDict):
    deal: int
    seat: int
    error: str


class ResultsField(TypedDict):
    "The field estimator's figures (bench tournament --estimator field): every bot's play of every hand against the same simulated opponents, set by the field bot; units a hand at the table. bench report computes them again from the records, making the field bot."
    bot: str
    sample_count: int
    by_bot: dict[str, ResultsEstimate]
    crosstable: dict[str, dict[str, ResultsEstimate]]


class ResultsTiming(TypedDict):
    backend: str
    job_count: int
    wall_seconds: float
    timed_deal_count: int
    deals_per_second: float | None
    hands_per_second: float | None
    hands_played_per_second: float | None
    decision_time_by_bot: dict[str, ResultsTimingDecisionTimeByBotValue]
    seconds: list[list[list[float]]]


class ResultsTimingDecisionTimeByBotValue(TypedDict):
    median_ms: float
    p95_ms: float
    decision_count: int


class ResultsDocumentPartial(TypedDict):
    played_deal_count: int
    planned_deal_count: int


class ResultsRecord(TypedDict):
    deal: int
    dealer: int
    hands: list[str]
    plays: list[list[ResultsPlay]]


class ResultsPlay(TypedDict):
    "One bot's play of one seat's hand: its rows (null when the decision failed, with the fault's text), each row's strength code, whether the rows foul and why."
    arrangement: ResultsRows | None
    values: list[int]
    foul: bool
    foul_reason: str | None
    natural: NotRequired[ResultsPlayNatural | None]
    fault: NotRequired[str]


class ResultsRows(TypedDict):
    "An arrangement: each row's cards as text."
    front: str
    middle: str
    back: str


class ResultsPlayNatural(TypedDict):
    kind: str
    key: list[int]


# --- solve.schema.json

class SolveDocument(TypedDict):
    "The best arrangement of a hand and the evidence for it: solve --json, and the web API's POST /api/solve."
    schema_version: Literal[3]
    document: Literal['solve']
    hand: str
    arrangement: SolveArrangement
    ev: float
    ev_se: float | None
    ev_parts: SolveDocumentEvParts
    rows: SolveRowResults
    alternatives: list[SolveDocumentAlternativesItem]
    alternatives_distinct: Literal['hands', 'values']
    sample_count: int
    seed: int
    opponent: str
    player_count: int
    rules: SolveRules
    natural: Literal['dragon', 'four trips', 'three straights', 'six pairs', 'three flushes'] | None
    natural_ev: float | None
    declare: bool
    natural_held: str | None
    natural_opponent_share: float | None
    legal_split_count: int
    seconds: float
    timings: SolveDocumentTimings
    opponent_identity: NotRequired[dict[str, Any]]


class SolveArrangement(TypedDict):
    "an arrangement: each row's cards in reading order"
    front: str
    middle: str
    back: str


class SolveDocumentEvParts(TypedDict):
    opponent_count: int
    per_opponent: SolveDocumentEvPartsPerOpponent


class SolveDocumentEvPartsPerOpponent(TypedDict):
    rows: SolveDocumentEvPartsPerOpponentRows
    bonus: NotRequired[float]
    royalty: NotRequired[float]
    opponent_natural: NotRequired[float]


class SolveDocumentEvPartsPerOpponentRows(TypedDict):
    front: float
    middle: float
    back: float


class SolveRowResults(TypedDict):
    front: SolveRowResultsFront
    middle: SolveRowResultsMiddle
    back: SolveRowResultsBack


class SolveRowResultsFront(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float


class SolveRowResultsMiddle(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float


class SolveRowResultsBack(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float


class SolveDocumentAlternativesItem(TypedDict):
    arrangement: SolveArrangement
    ev: float
    diff: float
    diff_se: float | None
    significant: bool
    rows: NotRequired[SolveRowResults]


class SolveRules(TypedDict):
    "the rule set (solver.rules.Rules.to_dict)"
    name: str
    scoring: Literal['basic', '1-6', '2-4']
    royalties: list[SolveRulesRoyaltiesItem]
    royalty_needs_win: bool
    naturals: bool
    natural_payouts: dict[str, int]


class SolveRulesRoyaltiesItem(TypedDict):
    row: Literal['front', 'middle', 'back']
    category: str
    units: int


class SolveDocumentTimings(TypedDict):
    deal: float
    arrange: float
    score: float


# --- verify.schema.json

class VerifyDocument(TypedDict):
    "bench verify DIR --json: a run's deals played again from its journal and compared with their records. A damaged journal has its journal_problem, verified false and nothing else."
    schema_version: Literal[1]
    document: Literal['verify']
    folder: str
    journal_problem: str | None
    run: NotRequired[str]
    deal_count: NotRequired[int]
    planned_deal_count: NotRequired[int]
    replayed_bots: NotRequired[list[str]]
    replayed_deal_count: NotRequired[int]
    matched_deal_count: NotRequired[int]
    differing_deal_count: NotRequired[int]
    compared_play_count: NotRequired[int]
    uncompared_fault_count: NotRequired[int]
    differences: NotRequired[list[VerifyDocumentDifferencesItem]]
    unreplayable_bots: NotRequired[list[VerifyDocumentUnreplayableBotsItem]]
    package_change: NotRequired[str | None]
    cut_line_dropped: NotRequired[bool]
    results_deal_count: NotRequired[int | None]
    results_problem: NotRequired[str | None]
    verified: bool


class VerifyDocumentDifferencesItem(TypedDict):
    deal: int
    seat: int
    bot: str
    field: Literal['arrangement', 'natural', 'values', 'foul', 'foul_reason']
    recorded: str
    replayed: str


class VerifyDocumentUnreplayableBotsItem(TypedDict):
    bot: str
    reason: str
    deal_count: int


# --- web-bots.schema.json

class WebBotsDocument(TypedDict):
    "GET /api/bots: the bots a session may seat and which may set simulated opponents."
    schema_version: Literal[1]
    document: Literal['web-bots']
    bots: list[WebBotsDocumentBotsItem]


class WebBotsDocumentBotsItem(TypedDict):
    name: str
    description: str
    opponent_model: bool
    parameters: dict[str, list[Any]]


# --- web-check.schema.json

class WebCheckDocument(TypedDict):
    "POST /api/check: whether an arrangement fouls, and what its rows hold."
    schema_version: Literal[1]
    document: Literal['web-check']
    arrangement: WebCheckArrangement
    foul: bool
    foul_reason: str | None
    rows: WebCheckDocumentRows


class WebCheckArrangement(TypedDict):
    "an arrangement: each row's cards in reading order"
    front: str
    middle: str
    back: str


class WebCheckDocumentRows(TypedDict):
    front: WebCheckDocumentRowsFront
    middle: WebCheckDocumentRowsMiddle
    back: WebCheckDocumentRowsBack


class WebCheckDocumentRowsFront(TypedDict):
    hand: str


class WebCheckDocumentRowsMiddle(TypedDict):
    hand: str


class WebCheckDocumentRowsBack(TypedDict):
    hand: str


# --- web-deal.schema.json

class WebDealDocument(TypedDict):
    "POST /api/deal: 13 cards dealt from a seed."
    schema_version: Literal[1]
    document: Literal['web-deal']
    hand: str
    seed: int


# --- web-session-deal.schema.json

class WebSessionDealDocument(TypedDict):
    "POST /api/session/deal: the player's hand of one deal of a session."
    schema_version: Literal[1]
    document: Literal['web-session-deal']
    hand: str
    seat: int
    hand_number: int
    dealer: int
    hand_count: int
    natural: str | None
    scored: bool
    scoring: bool
    result: dict[str, Any] | None


# --- web-session-play.schema.json

class WebSessionPlayDocument(TypedDict):
    "POST /api/session/play: one hand of a session played: every seat's play, the units each pair settled, the player's grade, and the session's totals. The seed is told once the last hand is scored."
    schema_version: Literal[1]
    document: Literal['web-session-play']
    seats: list[WebSessionPlayDocumentSeatsItem]
    pairs: list[list[int]]
    row_results: list[list[WebSessionPlayDocumentRowResultsItemItem | None]]
    scores: list[int]
    grade: WebSessionPlayHandGrade | None
    review: WebSessionPlayDocumentReview
    totals: list[int]
    hands_scored: list[int]
    seed: int | None


class WebSessionPlayDocumentSeatsItem(TypedDict):
    seat: int
    name: str
    arrangement: WebSessionPlayArrangement | None
    rows: WebSessionPlayDocumentSeatsItemRows | None
    foul: bool
    foul_reason: str | None
    natural: str | None


class WebSessionPlayArrangement(TypedDict):
    "an arrangement: each row's cards in reading order"
    front: str
    middle: str
    back: str


class WebSessionPlayDocumentSeatsItemRows(TypedDict):
    front: WebSessionPlayDocumentSeatsItemRowsFront
    middle: WebSessionPlayDocumentSeatsItemRowsMiddle
    back: WebSessionPlayDocumentSeatsItemRowsBack


class WebSessionPlayDocumentSeatsItemRowsFront(TypedDict):
    hand: str


class WebSessionPlayDocumentSeatsItemRowsMiddle(TypedDict):
    hand: str


class WebSessionPlayDocumentSeatsItemRowsBack(TypedDict):
    hand: str


class WebSessionPlayDocumentRowResultsItemItem(TypedDict):
    front: Literal[-1, 0, 1]
    middle: Literal[-1, 0, 1]
    back: Literal[-1, 0, 1]


class WebSessionPlayHandGrade(TypedDict):
    "A player's arrangement of one hand against the best play on the same simulated opponents: solve --grade --json, and the web API's POST /api/grade."
    schema_version: Literal[3]
    document: Literal['hand-grade']
    hand: str
    arrangement: WebSessionPlayArrangement | None
    declared: NotRequired[bool]
    foul: bool
    foul_reason: str | None
    ev: float
    best: WebSessionPlayHandGradeBest
    diff: float
    diff_se: float | None
    lost: float
    natural: NotRequired[str | None]
    natural_ev: NotRequired[float | None]
    declare: NotRequired[bool]
    verdict: NotRequired[Literal['best', 'fine', 'inaccuracy', 'mistake', 'blunder']]
    why: NotRequired[list[str]]
    decision: NotRequired[Literal['naturals', 'flush or straight in back', 'splitting two pair', 'where the pair goes', "the front's kicker", 'the other kickers', 'same as the best play']]
    rows: WebSessionPlayHandGradeRows | None
    sample_count: int
    seed: int
    opponent: str
    player_count: int
    rules: WebSessionPlayRules


class WebSessionPlayHandGradeBest(TypedDict):
    arrangement: WebSessionPlayArrangement
    ev: float
    ev_se: float | None
    rows: WebSessionPlayRowResults


class WebSessionPlayRowResults(TypedDict):
    front: WebSessionPlayRowResultsFront
    middle: WebSessionPlayRowResultsMiddle
    back: WebSessionPlayRowResultsBack


class WebSessionPlayRowResultsFront(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float


class WebSessionPlayRowResultsMiddle(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float


class WebSessionPlayRowResultsBack(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float


class WebSessionPlayHandGradeRows(TypedDict):
    front: WebSessionPlayHandGradeRowsFront
    middle: WebSessionPlayHandGradeRowsMiddle
    back: WebSessionPlayHandGradeRowsBack


class WebSessionPlayHandGradeRowsFront(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float
    best_cards: str
    best_hand: str
    ev_diff: float


class WebSessionPlayHandGradeRowsMiddle(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float
    best_cards: str
    best_hand: str
    ev_diff: float


class WebSessionPlayHandGradeRowsBack(TypedDict):
    cards: str
    hand: str
    win: float | None
    tie: float | None
    lose: float | None
    ev: float
    best_cards: str
    best_hand: str
    ev_diff: float


class WebSessionPlayRules(TypedDict):
    "the rule set (solver.rules.Rules.to_dict)"
    name: str
    scoring: Literal['basic', '1-6', '2-4']
    royalties: list[WebSessionPlayRulesRoyaltiesItem]
    royalty_needs_win: bool
    naturals: bool
    natural_payouts: dict[str, int]


class WebSessionPlayRulesRoyaltiesItem(TypedDict):
    row: Literal['front', 'middle', 'back']
    category: str
    units: int


class WebSessionPlayDocumentReview(TypedDict):
    hand: str
    yours: str
    best: str
    best_arrangement: WebSessionPlayArrangement
    ev: float
    best_ev: float
    lost: float
    natural: str | None
    natural_ev: float | None
    play_ev: float
    sample_count: int
    seed: int
    opponent: str
    player_count: int
    rules: str


# --- web-session-start.schema.json

class WebSessionStartDocument(TypedDict):
    "POST /api/session/start: a new session of Play. The seed is null unless the request gave it (it is told when the session is over)."
    schema_version: Literal[1]
    document: Literal['web-session-start']
    session: str
    seed: int | None
    bots: list[str]
    rules: str
    player_count: int
    hand_count: int
