"""Layouts of the small int64 arrays the kernels pass around (documented in one place).

``st`` (game state, ``ST_LEN`` int64). Fields ``0 .. PUBLIC_LEN-1`` are what
every player at the table knows; only that prefix (``st[:PUBLIC_LEN]``) is
handed to strategies. The rest is hidden.

``rules`` (``R_LEN`` int64): the packed ``Rules`` object.

Results of one deal are written into ``res`` (``RES_LEN`` int64) and the
per-side item counts into ``items`` (2 x ``N_ITEMS``; row 0 Re, row 1 Kontra).
"""

# ---- public part of st
P_SCHEME = 0          # trump scheme (cards.py)
P_CONTRACT = 1        # contract code as the table sees it (a silent marriage looks normal)
P_DECLARER = 2        # seat that declared the contract, -1 none
P_SOLOIST = 3         # publicly known soloist, -1 none
P_DEALER = 4
P_LEADER = 5          # leader of the current trick
P_TRICK = 6           # index of the current trick (0-based)
P_NPLAYED = 7         # cards on the table in total
P_TURN = 8            # seat to play next
P_LEVEL_RE = 9        # highest call level of Re: 0 none, 1 Re, 2 no 90, 3 no 60, 4 no 30, 5 schwarz
P_LEVEL_KO = 10       # the same for Kontra
P_FIRST_RE = 11       # cards on the table when Re first called, -1 none
P_FIRST_KO = 12
P_BAR_RE = 13         # 1 when Re's Re was a late reply: its denials are barred
P_BAR_KO = 14
P_KNOWN_RE = 15       # mask of seats the table knows to be Re
P_KNOWN_KO = 16       # mask of seats the table knows to be Kontra
P_CLARIFIED = 17      # 1 once the parties are settled (always 1 outside a marriage)
P_CLARIFY_TRICK = 18  # marriage: 1..3 once clarified, else 0
P_SHIFT = 19          # cards the call limits drop by (marriage clarified in trick 2: 1, trick 3: 2)
P_HAND_SIZE = 20      # N, cards per hand at the start (12)
P_MARRIAGE_SEAT = 21  # marriage declarer, -1 none
P_COMPULSORY = 22     # 1 for a compulsory solo
P_PIGLETS = 23        # seat holding both AD when piglets rank above TH (house rule), -1 none
P_SUPERPIGLETS = 24   # seat holding both 9D (KD without nines) ranked above the piglets, -1 none
P_POVERTY_SEAT = 25   # poverty: the poor player, -1 none
P_POVERTY_PARTNER = 26  # poverty: the acceptor, -1 none
P_POVERTY_TRUMPS = 27   # poverty: trumps among the returned cards (announced)
PUBLIC_LEN = 28
# ---- hidden part
H_CONTRACT = 28       # the true contract code
H_SOLOIST = 29        # the true soloist (silent marriage included), -1 none
H_RE_MASK = 30        # mask of Re seats
H_TABLES = 31         # 1 + the scheme whose tables power/fclass/cmask hold (0: none or altered); kept across deals
H_LED_MASK = 32       # cmask of the current trick's led card, set by play_card at each lead (legal_mask reads it)
ST_LEN = 33

# ---- rules
R_NO_NINES = 0
R_DULLE = 1           # 0 first, 1 second, 2 second_except_last
R_PIGLETS = 2
R_SUPERPIGLETS = 3
R_POVERTY = 4
R_THROW_IN = 5
R_FIVE_PLAYERS = 6
R_SOLO_MASK = 7       # bit k: solo kind k may be declared
R_BOCK_MASK = 8       # bit 0 tie, 1 lost_announcement, 2 zero, 3 lost_solo
R_LEN = 9

# ---- value items (GAME_RECORD.md names and weights)
ITEM_NAMES = (
    "won", "under_90", "under_60", "under_30", "schwarz",
    "re_announced", "kontra_announced",
    "no90_announced", "no60_announced", "no30_announced", "schwarz_announced",
    "reached_120", "reached_90", "reached_60", "reached_30",
    "against_the_queens", "doppelkopf", "fox_caught", "charlie",
)
I_WON, I_UNDER_90, I_REACHED_120 = 0, 1, 11
I_RE_ANN, I_KO_ANN, I_NO90_ANN = 5, 6, 7
I_AGAINST_QUEENS, I_DOPPELKOPF, I_FOX, I_CHARLIE = 15, 16, 17, 18
N_ITEMS = len(ITEM_NAMES)
ITEM_WEIGHTS = tuple(2 if name in ("re_announced", "kontra_announced") else 1 for name in ITEM_NAMES)

# ---- results of one deal
RES_EYES_RE = 0
RES_TRICKS_RE = 1
RES_WINNER = 2        # 0 re, 1 kontra, 2 nobody
RES_VALUE = 3         # game value V from the winner's side (nobody: as Re scores it)
RES_SCORE = 4         # 4..7 score per seat
RES_CONTRACT = 8
RES_SOLOIST = 9
RES_RE_MASK = 10
RES_CLARIFY_TRICK = 11
RES_LEVEL_RE = 12
RES_LEVEL_KO = 13
RES_FIRST_RE = 14
RES_FIRST_KO = 15
RES_COMPLETE = 16     # 1 when all cards were played and the deal was scored
RES_NPLAYED = 17
RES_DECLARER = 18
RES_LEN = 19

WINNER_NAMES = ("re", "kontra", "none")

# ---- error kinds (GAME_RECORD.md); 0 = no error
E_OK = 0
E_NOT_IN_HAND = 1
E_FOLLOW_SUIT = 2
E_WRONG_SIDE = 3
E_BEFORE_CLARIFICATION = 4
E_NO_RAISE = 5
E_TOO_LATE = 6
E_LATE_REPLY = 7
E_MARRIAGE_WITHOUT_QC = 8
E_BAD_CONTRACT = 9
E_NOT_THE_PACK = 10
ERROR_KINDS = (
    "", "not_in_hand", "follow_suit", "wrong_side", "before_clarification",
    "no_raise", "announcement_too_late", "denial_after_late_reply",
    "marriage_without_qc", "bad_contract", "not_the_pack",
)

CALL_NAMES = ("", "re", "no90", "no60", "no30", "schwarz")  # by level; level 1 of Kontra is "kontra"

# ---- one simulated deal's row (``out`` array of the simulator; dataset columns of the same names)
OUT_COLUMNS = (
    "deal_id", "dealer", "hand_0", "hand_1", "hand_2", "hand_3", "contract", "declarer",
    "re_mask", "eyes_re", "tricks_re", "calls_re", "calls_kontra", "first_call_re",
    "first_call_kontra", "soloist", "clarifying_trick", "winner", "game_value",
    "score_0", "score_1", "score_2", "score_3", "fox_re", "fox_kontra", "doppelkopf_re",
    "doppelkopf_kontra", "charlie_re", "charlie_kontra", "against_the_queens",
    "redeals", "poverty_partner", "poverty_passed", "poverty_returned", "piglets",
)
(O_DEAL_ID, O_DEALER, O_HAND, _h1, _h2, _h3, O_CONTRACT, O_DECLARER, O_RE_MASK, O_EYES_RE,
 O_TRICKS_RE, O_CALLS_RE, O_CALLS_KO, O_FIRST_RE, O_FIRST_KO, O_SOLOIST, O_CLARIFY, O_WINNER,
 O_VALUE, O_SCORE, _s1, _s2, _s3, O_FOX_RE, O_FOX_KO, O_DOKO_RE, O_DOKO_KO, O_CHARLIE_RE,
 O_CHARLIE_KO, O_AGAINST_QUEENS, O_REDEALS, O_POVERTY_PARTNER, O_POVERTY_PASSED,
 O_POVERTY_RETURNED, O_PIGLETS) = range(len(OUT_COLUMNS))
OUT_LEN = len(OUT_COLUMNS)
MAX_CALL_LOG = 12     # calls kept per deal with --keep-play (cards_played, seat, level)

# reservation choices offered to strategies (bit i of the legal mask = choice i)
RES_HEALTHY = 0       # 1 + k: solo of kind k (cards.SOLO_KINDS); RES_MARRIAGE: marriage
RES_MARRIAGE = 8
RES_POVERTY = 9       # house rule poverty
RES_THROW_IN = 10     # house rule throw-in (a redeal)
REDEAL = -2           # resolve_reservations: the same dealer deals again
