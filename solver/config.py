"""The package's tunables, in one place: how long it waits, how much it reads and keeps, how
it splits work, what memory it reckons with, and the defaults of its commands.

A tunable is a value that could be set otherwise without changing a rule or a document
format: a maintainer may change one here, and every module reads it from here when it runs
(``config.QUIT_GRACE``, not a copy made at import), so a test sets one with
``monkeypatch.setattr(config, ...)``. It lives in ``solver``, the lowest layer, because every
layer reads it (``solver`` <- ``bots`` <- ``bench``); it imports nothing.

Not here: the ceilings a request, a rule set or a record is held to (``solver.limits``, with
their reasons, written out in docs/limits.md); constants that define a result or a format
(the rules, the spawn keys that set random streams apart, schema and protocol versions, the
kernels' bit layouts), which stay beside the code they define.

>>> QUIT_GRACE > 0 and BOT_POLL_SECONDS < QUIT_GRACE
True
"""

from __future__ import annotations

# --- waiting: seconds ----------------------------------------------------------------------
RETRY_SECONDS = 0.005  # how soon a time limit that landed in native code looks again (solver.interrupts)
BOT_POLL_SECONDS = 0.05  # between looks at whether a bot process is still running while waiting on it
QUIT_GRACE = 2.0  # a protocol bot has to exit after quit before its process group is ended
RUN_POLL_SECONDS = 0.2  # how often a run's waiting loop wakes up to notice a signal
ENDING_SECONDS = 5.0  # how long a run's worker processes have to close their bots before they are killed
SCHEDULER_SECONDS = 10.0  # how long a --scheduler address has to answer as a dask scheduler does
SCHEDULER_GRACE = 2.0  # a moment more, so that dask's own message comes first when it has one
DEFAULT_DECISION_TIMEOUT = 60.0  # bench tournament --decision-timeout: one bot's seconds for one hand
DEFAULT_STARTUP_TIMEOUT = 60.0  # bench tournament --startup-timeout: one bot's seconds to get ready
JOURNAL_NAME_BYTES = 240  # bench exploit --journal: a name's longest, so that its temporary copy's and lock's fit in 255
REFUSED_SECONDS = 1.0  # bench serve: a connection refused (503) has this long to send its request, then it is closed

# --- reading: what is read of a file or a document, and quoted back ------------------------
SETTINGS_BYTES = 1 << 20  # house rules and bot files (TOML or JSON): a page of settings, with room to spare
LINE_BYTES = 1 << 16  # one line of a hands file (13 cards, or a hand and its arrangement, and a comment)
ARRAYS_BYTES = 1 << 28  # a tables file or training checkpoint (.npz), on disk and unpacked (shipped: 1.3 MiB)
JSON_DEPTH = 64  # arrays and objects inside one another; the documents the package writes nest a dozen deep at most
EXCERPT = 80  # characters of outside text quoted in an error message
ERROR_LIMIT = 1000  # characters of an error's words on its one line; more is cut, with the length said
FIRST_DIFFERENCES = 10  # differences bench verify keeps and shows, those of the lowest deal numbers

# --- keeping: logs and the bots a thread holds ----------------------------------------------
LOG_HEAD = 1 << 20  # bytes of a bot process's standard error kept from its start
LOG_TAIL = 1 << 20  # and from its end
LOG_FILES = 10  # logs kept of one bot's processes: the first, and the last ones started
MADE_PER_THREAD = 4  # sets of bots a thread keeps; older ones are closed

# --- splitting work --------------------------------------------------------------------------
PARALLEL_BATCH = 256  # a bot's batches at least this large are split over the cores
CHUNKS_PER_CORE = 2  # more chunks than cores: a core that is slowed or taken by another process holds up less
MOST_A_CHUNK = 2048  # and no chunk longer than this: Ctrl-C waits for the chunk the calling thread is setting
MOST_DEALS_PER_CHUNK = 1024  # a tournament's chunk is one journal line: the journal grows at least this often
REPLAY_CHUNK = 32  # deals a chunk of bench verify's replay: progress (and a stop) comes at least this often
REPLAYED_LINES = 16  # a resume plays again one deal of this many journal lines (of every line, when fewer)
MATCH_DEALS_PER_NAT = 176  # bench match, either estimator: deals before a decision per nat of ln(1 / error rate)
MATCH_ALIKE_DEALS = 256  # bench match: deals that all come out exactly 0 end a match as "alike"
MATCH_CHUNK = 16  # deals between two looks at bench match's test; the same for any number of workers
LISTEN_BACKLOG = 2048  # connections that wait to be taken by bench serve, as uvicorn asks for
MOST_LINKS = 40  # symbolic links followed on the way up a cache path before it counts as a loop

# --- memory: what one unit of work is reckoned to take at its peak --------------------------
BYTES_PER_SAMPLE = 700  # a simulated opponent while dealt (39 floats and their order), measured ~620
SMALL_NEED = 64 * 2**20  # a sample needing less than this is not weighed against the memory left
BYTES_PER_DEAL = 200  # bench match's plan of deals held while it runs (the chunks, and their tasks on the workers)
TRAINING_BYTES_PER_HAND = 400  # a hand of a training round, measured ~240

# --- statistics ------------------------------------------------------------------------------
NO_SPREAD = 1e-6  # a standard deviation below this x (h1 - h0) counts as no spread at all (bench match)
FEW_DIFFERING = 30  # fewer hands where two plays differ than this: bench exploit's normal interval is not trusted

# --- defaults of the commands and the library ------------------------------------------------
DEFAULT_SAMPLES = 1000  # simulated opponents a candidate arrangement is scored against (solve, grade)
DEFAULT_OPPONENT = "table"  # the bot whose play the simulated opponents follow
EXPLOIT_HANDS = 2000  # bench exploit: random hands measured
EXPLOIT_REPLAYED = 3  # bench exploit --resume: hands measured again besides the last, drawn at random
TRAINING_HANDS = 200_000  # bench train: hands dealt per round; the shipped tables are made with these four
TRAINING_ROUNDS = 24  # rounds of self-play
TRAINING_SEED = 0
TRAINING_CHECK_HANDS = 10_000  # hands a round's tables are checked on
TRAINING_OUT = "table.npz"  # the file bench train writes
