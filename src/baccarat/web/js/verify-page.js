// The browser's verifier: the provably fair derivation of docs/fairness.md, and the port of
// baccarat.fairness.verify (the checks of `baccarat verify`, with the same names), and the
// page verify.html.
//
// A classic script, not an ES module, so that verify.html also runs saved to disk and opened
// from a file (browsers load no module from file://). It defines globalThis.BaccaratFair;
// fair.js exports it as an ES module for the other pages and for Node.
//
// server seed: 32 bytes as 64 hex characters; commitment = sha256(seed bytes) in hex.
// bytes: HMAC-SHA256(key = seed bytes, msg = `${clientSeed}:${nonce}:${counter}`), counter 0, 1, ...
// uniform in [0, n): next 4 bytes big-endian x; if x >= 2**32 - (2**32 % n) take the next 4,
// else x % n. Fisher-Yates from the top index down over the canonical order (deck by deck,
// suits c d h s, ranks A 2 3 4 5 6 7 8 9 T J Q K); a cut at k gives L[k:] + L[:k].
// multiplier cards: their own stream under the key HMAC-SHA256(seed bytes,
// "baccarat-lightning/1"), msg = `${clientSeed}:${nonce}:${position}:${counter}`: K, then K
// distinct cards of one canonical deck (a partial Fisher-Yates from the front), then each
// card's multiplier (a uniform integer below the chances' common denominator, against their
// cumulative numerators).
// The Python reference is baccarat.fairness; tests/data/fairness_vectors.json and
// tests/data/export_vectors.json bind both.

((global) => {
  const SUITS = ["c", "d", "h", "s"];
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
  const MAX_DECKS = 8;
  const SPACE = 2 ** 32;

  // -- rule sets: what matters to a shoe and to a settlement (checked against
  // baccarat.core.rules by the tests) ---------------------------------------------------------

  const DRAGON = {
    natural_win: "1",
    natural_tie: "push",
    win_by_9: "30",
    win_by_8: "10",
    win_by_7: "6",
    win_by_6: "4",
    win_by_5: "2",
    win_by_4: "1",
  };
  const PAIRS = { player_pair: { pair: "11" }, banker_pair: { pair: "11" }, either_pair: { pair: "5" } };
  const BIG_SMALL = { big: { big: "27/50" }, small: { small: "3/2" } };
  const DRAGONS = { player_dragon: DRAGON, banker_dragon: DRAGON };
  const CLASSIC_SIDE_BETS = { ...PAIRS, perfect_pair: { one: "25", both: "200" }, ...DRAGONS, ...BIG_SMALL };
  // One deck holds no two identical cards: no perfect pair there.
  const SINGLE_DECK_SIDE_BETS = { ...PAIRS, ...DRAGONS, ...BIG_SMALL };
  // Multiplier baccarat's pairs pay 9:1 (times the pair's multiplier).
  const MULTIPLIER_PAIRS = { player_pair: { pair: "9" }, banker_pair: { pair: "9" } };
  const COMMISSION = { win: "19/20", win_with_6: "19/20", win_three_card_7: "19/20", tie: "push" };
  // Multiplier baccarat's published terms (baccarat.core.rules.MULTIPLIER_TERMS): the fee of
  // each stake, how many multiplier cards a coup gets and each one's multiplier, with their
  // chances.
  const MULTIPLIER_TERMS = {
    fee: "1/5",
    counts: { 1: "1/10", 2: "1/5", 3: "2/5", 4: "1/5", 5: "1/10" },
    values: { 2: "1/4", 3: "1/4", 4: "3/10", 5: "1/10", 8: "1/10" },
  };

  function game(decks, tie, sides, extra = {}) {
    const { banker = COMMISSION, shuffle = "fresh", aliases = [], multipliers = null } = extra;
    const cutShoe = shuffle === "cut-shoe";
    return {
      decks,
      shuffle,
      burn: cutShoe,
      cutCard: cutShoe ? Math.floor((52 * decks * 7) / 8) : null,
      bets: { player: { win: "1", tie: "push" }, banker, tie: { tie }, ...sides },
      aliases,
      multipliers,
    };
  }

  // The rule set presets of baccarat.core.rules: decks, shuffle, burn, cut card, and the pay
  // table of every bet they offer ({line: "to one" as a fraction, or "push"}).
  const RULES = {
    "online-6deck-tie9": game(6, "9", CLASSIC_SIDE_BETS, { aliases: ["seed-000"] }),
    mini: game(8, "8", CLASSIC_SIDE_BETS, { shuffle: "cut-shoe", aliases: ["mini-baccarat", "seed-001"] }),
    "single-deck": game(1, "8", SINGLE_DECK_SIDE_BETS, { aliases: ["seed-002"] }),
    "classic-6deck": game(6, "8", CLASSIC_SIDE_BETS, { aliases: ["seed-003"] }),
    "online-8deck-tie8": game(8, "8", CLASSIC_SIDE_BETS, { aliases: ["seed-004"] }),
    "classic-8deck": game(8, "8", CLASSIC_SIDE_BETS, { shuffle: "cut-shoe", aliases: ["standard", "8deck"] }),
    "ez-8deck": game(
      8,
      "8",
      { dragon7: { dragon_7: "40" }, panda8: { panda_8: "25" } },
      { banker: { win: "1", win_with_6: "1", win_three_card_7: "push", tie: "push" }, aliases: ["ez"] },
    ),
    "no-commission-8deck": game(
      8,
      "8",
      { super6: { win_with_6: "12" } },
      { banker: { win: "1", win_with_6: "1/2", win_three_card_7: "1", tie: "push" }, aliases: ["no-commission", "super6"] },
    ),
    multiplier: game(8, "5", MULTIPLIER_PAIRS, { multipliers: MULTIPLIER_TERMS, aliases: ["lightning"] }),
    "multiplier-shoe": game(8, "5", MULTIPLIER_PAIRS, { multipliers: MULTIPLIER_TERMS, shuffle: "cut-shoe" }),
  };

  // What a shoe needs of a preset (the single-shuffle form and its links).
  const PRESETS = Object.fromEntries(
    Object.entries(RULES).map(([name, r]) => [name, { decks: r.decks, shuffle: r.shuffle, burn: r.burn, cutCard: r.cutCard }]),
  );

  function getRules(name) {
    if (Object.hasOwn(RULES, name)) return { name, ...RULES[name] };
    for (const [canonical, rules] of Object.entries(RULES)) {
      if (rules.aliases.includes(name)) return { name: canonical, ...rules };
    }
    throw new FairnessError(`unknown rule set ${JSON.stringify(name)}: one of ${Object.keys(RULES).join(", ")}`);
  }

  class FairnessError extends Error {
    constructor(message) {
      super(message);
      this.name = "FairnessError";
    }
  }

  // -- the derivation --------------------------------------------------------------------------

  function subtle() {
    const crypto = global.crypto;
    if (!crypto || !crypto.subtle) {
      throw new FairnessError("this browser offers no WebCrypto here: open the page over https, from localhost or from a file");
    }
    return crypto.subtle;
  }

  function toHex(bytes) {
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  /** The seed's 32 bytes; blanks around it and upper case are forgiven. */
  function parseServerSeed(text) {
    const seed = String(text ?? "")
      .trim()
      .toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(seed)) {
      throw new FairnessError("a server seed is 64 hex characters (32 bytes)");
    }
    const bytes = new Uint8Array(32);
    for (let i = 0; i < 32; i += 1) bytes[i] = parseInt(seed.slice(2 * i, 2 * i + 2), 16);
    return bytes;
  }

  const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

  /** The client seed as UTF-8; text with unpaired surrogates is refused (Python refuses it). */
  function clientSeedBytes(clientSeed) {
    if (typeof clientSeed !== "string") throw new FairnessError("a client seed is a text");
    if (LONE_SURROGATE.test(clientSeed)) {
      throw new FairnessError("a client seed must be valid Unicode text (UTF-8)");
    }
    return new TextEncoder().encode(clientSeed);
  }

  /** The nonce in canonical decimal (as Python prints an int): any size, no leading zeros. */
  function parseNonce(value) {
    const text = String(value ?? "").trim();
    if (!/^[0-9]+$/.test(text)) {
      throw new FairnessError(`a nonce is a whole number from 0, not ${JSON.stringify(text)}`);
    }
    return BigInt(text).toString();
  }

  function parseDecks(value) {
    const text = String(value ?? "").trim();
    const decks = Number(text);
    if (!/^[0-9]+$/.test(text) || decks < 1 || decks > MAX_DECKS) {
      throw new FairnessError(`a shoe holds 1 to ${MAX_DECKS} decks, not ${JSON.stringify(text)}`);
    }
    return decks;
  }

  /** A cut position 0 .. size-1, or null when empty. */
  function parseCut(value, size) {
    const text = String(value ?? "").trim();
    if (text === "" || text === "null") return null;
    const cut = Number(text);
    if (!/^[0-9]+$/.test(text) || cut >= size) {
      throw new FairnessError(`a cut is a position from 0 to ${size - 1}, not ${JSON.stringify(text)}`);
    }
    return cut;
  }

  /** sha256 of the seed's bytes, as hex: the commitment shown before play. */
  async function commitment(serverSeed) {
    const digest = await subtle().digest("SHA-256", parseServerSeed(serverSeed));
    return toHex(new Uint8Array(digest));
  }

  async function hmacKey(serverSeed) {
    return subtle().importKey("raw", parseServerSeed(serverSeed), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  }

  /** Uniform integers from the HMAC byte stream, by rejection (no modulo bias). */
  class FairRandom {
    constructor(key, clientSeed, nonce) {
      this.key = key;
      this.prefix = `${clientSeed}:${nonce}:`;
      this.counter = 0;
      this.view = null;
      this.offset = 32;
    }

    static async create(serverSeed, clientSeed, nonce) {
      clientSeedBytes(clientSeed);
      return new FairRandom(await hmacKey(serverSeed), clientSeed, parseNonce(nonce));
    }

    /** Block `counter` of the stream: HMAC-SHA256(seed, "client:nonce:counter"). */
    async block(counter) {
      const message = new TextEncoder().encode(this.prefix + counter);
      return new Uint8Array(await subtle().sign("HMAC", this.key, message));
    }

    /** The next 4 bytes as a big-endian unsigned 32-bit integer. */
    async nextU32() {
      if (this.offset >= 32) {
        this.view = new DataView((await this.block(this.counter)).buffer);
        this.counter += 1;
        this.offset = 0;
      }
      const word = this.view.getUint32(this.offset, false);
      this.offset += 4;
      return word;
    }

    /** A uniform integer in [0, n). */
    async randrange(n) {
      if (!Number.isInteger(n) || n <= 0 || n > SPACE) {
        throw new FairnessError(`cannot draw uniformly from [0, ${n})`);
      }
      const limit = SPACE - (SPACE % n);
      for (;;) {
        const x = await this.nextU32();
        if (x < limit) return x % n;
      }
    }
  }

  /** The first 32 bytes of the stream (counter 0). */
  async function firstBlock(serverSeed, clientSeed, nonce) {
    const random = await FairRandom.create(serverSeed, clientSeed, nonce);
    return random.block(0);
  }

  /** The canonical order of a shoe: deck by deck, suits c d h s, ranks A..K. */
  function canonicalOrder(decks) {
    const deck = SUITS.flatMap((suit) => RANKS.map((rank) => rank + suit));
    return Array.from({ length: decks }, () => deck).flat();
  }

  /** The shoe's dealing order (card strings such as "Td"), after the player's cut if any. */
  async function shuffledOrder(serverSeed, clientSeed, nonce, decks, cut = null) {
    const size = 52 * parseDecks(decks);
    const cutAt = cut === null || cut === undefined ? null : parseCut(cut, size);
    const random = await FairRandom.create(serverSeed, clientSeed, nonce);
    const cards = canonicalOrder(size / 52);
    for (let i = cards.length - 1; i >= 1; i -= 1) {
      const j = await random.randrange(i + 1);
      [cards[i], cards[j]] = [cards[j], cards[i]];
    }
    return cutAt === null ? cards : cards.slice(cutAt).concat(cards.slice(0, cutAt));
  }

  /** "1/5" -> [1, 5]; "9" -> [9, 1]. */
  function ratio(text) {
    const [num, den = "1"] = String(text).split("/");
    return [Number(num), Number(den)];
  }

  const gcd = (a, b) => (b ? gcd(b, a % b) : a);

  /** One key of a published distribution ({key: "n/d"}), exactly: a uniform integer x below
   * the common denominator D, and the first key whose cumulative numerator (over D) exceeds x. */
  async function pick(random, chances) {
    const entries = Object.entries(chances).map(([key, chance]) => [Number(key), ratio(chance)]);
    const denominator = entries.reduce((d, [, [, den]]) => (d * den) / gcd(d, den), 1);
    const x = await random.randrange(denominator);
    let cumulative = 0;
    for (const [key, [num, den]] of entries) {
      cumulative += num * (denominator / den);
      if (x < cumulative) return key;
    }
    throw new FairnessError("the chances add up to 1");
  }

  /** The multiplier cards' stream key: HMAC-SHA256(seed bytes, "baccarat-lightning/1"). */
  async function lightningKey(serverSeed) {
    const digest = await subtle().sign("HMAC", await hmacKey(serverSeed), new TextEncoder().encode("baccarat-lightning/1"));
    return subtle().importKey("raw", digest, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  }

  /**
   * The multiplier cards ([{card, multiplier}], in the order drawn) of the coup that starts
   * at `position` of the shoe of these seeds and nonce, under a rule set's terms.
   */
  async function deriveLightning(serverSeed, clientSeed, nonce, terms, position = 0) {
    clientSeedBytes(clientSeed);
    if (!Number.isInteger(position) || position < 0) throw new FairnessError(`a position is a whole number from 0, not ${position}`);
    const random = new FairRandom(await lightningKey(serverSeed), clientSeed, `${parseNonce(nonce)}:${position}`);
    const count = await pick(random, terms.counts);
    const deck = canonicalOrder(1);
    for (let i = 0; i < count; i += 1) {
      const j = i + (await random.randrange(deck.length - i));
      [deck[i], deck[j]] = [deck[j], deck[i]];
    }
    const cards = [];
    for (const card of deck.slice(0, count)) cards.push({ card, multiplier: await pick(random, terms.values) });
    return cards;
  }

  /** A multiplier card as the reports show it: "Ah x3". */
  const lightningText = (one) => (one ? `${one.card} x${one.multiplier}` : null);

  // -- cards, hands, the tableau ---------------------------------------------------------------

  /** Baccarat value of a card: ace 1, two to nine face value, ten and pictures 0. */
  function cardValue(card) {
    const rank = RANKS.indexOf(card[0]) + 1;
    if (rank < 1) throw new FairnessError(`bad card ${JSON.stringify(card)}`);
    return rank < 10 ? rank : 0;
  }

  /** Cards burned under the turned first card: its rank value, tens and pictures count 10. */
  function burnCount(card) {
    return Math.min(RANKS.indexOf(card[0]) + 1, 10);
  }

  /** A hand's score: the sum of its cards' values, modulo 10 (the one scorer of the pages). */
  function score(cards) {
    return cards.reduce((sum, card) => sum + cardValue(card), 0) % 10;
  }

  /** A card as Python's Card.parse reads it ("th" is "Th"), or null. */
  function parseCard(text) {
    if (typeof text !== "string" || text.length !== 2) return null;
    const card = text[0].toUpperCase() + text[1].toLowerCase();
    return RANKS.includes(card[0]) && SUITS.includes(card[1]) ? card : null;
  }

  /** A hand of any cards, as recorded: its cards and [two-card score, final score]. */
  function hand(cards) {
    return { cards, scores: [score(cards.slice(0, 2)), score(cards)] };
  }

  const isNatural = (s) => s >= 8;
  const playerDraws = (p) => p <= 5;

  function bankerDraws(banker, third) {
    if (third === null) return banker <= 5; // the player stood: banker draws on 0-5
    if (banker <= 2) return true;
    if (banker === 3) return third !== 8;
    if (banker === 4) return third >= 2 && third <= 7;
    if (banker === 5) return third >= 4 && third <= 7;
    if (banker === 6) return third >= 6 && third <= 7;
    return false; // banker 7 stands
  }

  /** A coup of two hands: its winner and cards (Python's Coup). */
  function coupOf(player, banker) {
    const p = player.scores[1];
    const b = banker.scores[1];
    return {
      player,
      banker,
      winner: p > b ? "player" : b > p ? "banker" : "tie",
      natural: isNatural(player.scores[0]) || isNatural(banker.scores[0]),
      cardsUsed: player.cards.length + banker.cards.length,
    };
  }

  /** The coup dealt from the top of `cards`: player, banker, player, banker, then the tableau. */
  function playCoup(cards) {
    let next = 0;
    const draw = () => {
      if (next >= cards.length) throw new FairnessError("too few cards left for a coup");
      return cards[next++];
    };
    const player = [draw()];
    const banker = [draw()];
    player.push(draw());
    banker.push(draw());
    const natural = score(player) >= 8 || score(banker) >= 8;
    if (!natural) {
      let third = null;
      if (playerDraws(score(player))) {
        const card = draw();
        player.push(card);
        third = cardValue(card);
      }
      if (bankerDraws(score(banker), third)) banker.push(draw());
    }
    return coupOf(hand(player), hand(banker));
  }

  /** Burn and cut card of a preset's shoe, given its order after the cut. */
  function shoeLayout(order, preset) {
    if (!preset || preset.shuffle !== "cut-shoe") return { burned: 0, cutCard: null };
    const burned = preset.burn ? 1 + burnCount(order[0]) : 0;
    return { burned, cutCard: preset.cutCard };
  }

  // -- bets: what each judges on a coup, and its settlement by the round's pay table -----------

  const BET_TYPES = [
    "player",
    "banker",
    "tie",
    "player_pair",
    "banker_pair",
    "either_pair",
    "perfect_pair",
    "player_dragon",
    "banker_dragon",
    "big",
    "small",
    "dragon7",
    "panda8",
    "super6",
  ];

  function dragon(own, other) {
    const mine = own.scores[1];
    const theirs = other.scores[1];
    if (mine > theirs) {
      if (isNatural(own.scores[0])) return "natural_win";
      const margin = mine - theirs;
      return margin >= 4 ? `win_by_${margin}` : null;
    }
    if (mine === theirs && isNatural(own.scores[0])) return "natural_tie";
    return null;
  }

  const isPair = (h) => h.cards[0][0] === h.cards[1][0];
  const isPerfectPair = (h) => h.cards[0] === h.cards[1];

  // The line of its pay table each bet hits (null: it loses), as baccarat.core.paytable judges.
  const JUDGES = {
    player: (c) => (c.player.scores[1] > c.banker.scores[1] ? "win" : c.winner === "tie" ? "tie" : null),
    banker: (c) => {
      const b = c.banker.scores[1];
      if (c.winner === "banker") {
        if (b === 6) return "win_with_6";
        if (b === 7 && c.banker.cards.length === 3) return "win_three_card_7";
        return "win";
      }
      return c.winner === "tie" ? "tie" : null;
    },
    tie: (c) => (c.winner === "tie" ? "tie" : null),
    player_pair: (c) => (isPair(c.player) ? "pair" : null),
    banker_pair: (c) => (isPair(c.banker) ? "pair" : null),
    either_pair: (c) => (isPair(c.player) || isPair(c.banker) ? "pair" : null),
    perfect_pair: (c) => {
      const player = isPerfectPair(c.player);
      const banker = isPerfectPair(c.banker);
      return player && banker ? "both" : player || banker ? "one" : null;
    },
    player_dragon: (c) => dragon(c.player, c.banker),
    banker_dragon: (c) => dragon(c.banker, c.player),
    big: (c) => (c.cardsUsed >= 5 ? "big" : null),
    small: (c) => (c.cardsUsed === 4 ? "small" : null),
    dragon7: (c) => (c.winner === "banker" && c.banker.scores[1] === 7 && c.banker.cards.length === 3 ? "dragon_7" : null),
    panda8: (c) => (c.winner === "player" && c.player.scores[1] === 8 && c.player.cards.length === 3 ? "panda_8" : null),
    super6: (c) => (c.winner === "banker" && c.banker.scores[1] === 6 ? "win_with_6" : null),
  };

  /** Winnings at a pay "to one" ("19/20") times a multiplier, rounded down to the cent once. */
  function winnings(pay, stake, multiplier = 1) {
    const [num, den] = ratio(pay);
    const product = stake * num * multiplier;
    return (product - (product % den)) / den;
  }

  // The cards each bet of a multiplier game is paid on (baccarat.core.multiplier.PAID_CARDS).
  const PAID_CARDS = {
    player: (c) => c.player.cards,
    banker: (c) => c.banker.cards,
    tie: (c) => c.player.cards.concat(c.banker.cards),
    player_pair: (c) => c.player.cards.slice(0, 2),
    banker_pair: (c) => c.banker.cards.slice(0, 2),
  };

  /** A bet's multiplier: the product of the multipliers of its paid cards that are
   * multiplier cards (a card there twice multiplies twice); 1 when none is. */
  function betMultiplier(bet, coup, lightning) {
    const by = new Map(lightning.map((one) => [one.card, one.multiplier]));
    return PAID_CARDS[bet](coup).reduce((product, card) => product * (by.get(card) ?? 1), 1);
  }

  class BetError extends Error {}

  /** The fee a multiplier table takes with a stake (0 at other tables); a stake whose fee is
   * not whole minor units throws BetError (Python's fee_of). */
  function feeOf(rules, stake) {
    if (!rules.multipliers) return 0;
    const [num, den] = ratio(rules.multipliers.fee);
    if ((stake * num) % den) {
      throw new BetError(
        `a stake at this table is a whole multiple of ${den} minor units (its fee is ${rules.multipliers.fee} of it), not ${stake}`,
      );
    }
    return (stake * num) / den;
  }

  /**
   * Every placed bet ([{bet, stake}]) settled against the coup (and a multiplier table's
   * multiplier cards): {bet, stake, result, returned, multiplier, fee}.
   */
  function settle(rules, bets, coup, lightning = []) {
    return bets.map(({ bet, stake }) => {
      const fee = feeOf(rules, stake);
      const line = JUDGES[bet](coup);
      const table = rules.bets[bet];
      const lost = { bet, stake, result: "lose", returned: 0, multiplier: 1, fee };
      if (line === null || !Object.hasOwn(table, line)) return lost;
      const pay = table[line];
      if (pay === "push") return { ...lost, result: "push", returned: stake };
      const multiplier = rules.multipliers ? betMultiplier(bet, coup, lightning) : 1;
      return { ...lost, result: "win", returned: stake + winnings(pay, stake, multiplier), multiplier };
    });
  }

  // -- the export: baccarat-history/1, read as strictly as baccarat.fairness.history -----------

  const FORMAT = "baccarat-history/1";
  const RESULTS = ["win", "push", "lose", "void"];
  const HEX64 = /^[0-9a-f]{64}$/;

  class HistoryFormatError extends Error {
    constructor(line, message) {
      super(`line ${line}: ${message}`);
      this.name = "HistoryFormatError";
      this.line = line;
    }
  }

  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const isInt = (v) => typeof v === "number" && Number.isInteger(v);

  function showShort(value) {
    const text = JSON.stringify(value);
    return text.length <= 40 ? text : `${text.slice(0, 37)}...`;
  }

  /** Typed access to one JSON object, every complaint naming the line and the field. */
  class Reader {
    constructor(line, data, path = "") {
      this.line = line;
      this.path = path;
      if (!isObject(data)) throw this.error(`${path ? `${path} must be` : "each line must be"} a JSON object`);
      this.data = data;
    }

    error(message) {
      return new HistoryFormatError(this.line, message);
    }

    name(key) {
      return this.path ? `${this.path}.${key}` : key;
    }

    has(key) {
      return Object.hasOwn(this.data, key);
    }

    get(key) {
      if (!this.has(key)) throw this.error(`${this.name(key)} is missing`);
      return this.data[key];
    }

    text(key, { nullable = false, optional = false } = {}) {
      if (optional && !this.has(key)) return null;
      const value = this.get(key);
      if (value === null && (nullable || optional)) return null;
      if (typeof value !== "string") throw this.error(`${this.name(key)} must be a string, not ${showShort(value)}`);
      return value;
    }

    integer(key, { minimum = null } = {}) {
      const value = this.get(key);
      if (!isInt(value)) throw this.error(`${this.name(key)} must be a whole number, not ${showShort(value)}`);
      if (minimum !== null && value < minimum) throw this.error(`${this.name(key)} must be at least ${minimum}, not ${value}`);
      return value;
    }

    optionalInteger(key, options) {
      return this.get(key) === null ? null : this.integer(key, options);
    }

    child(key) {
      return new Reader(this.line, this.get(key), this.name(key));
    }
  }

  function readHand(reader, key, isVoid) {
    const h = reader.child(key);
    const raw = h.get("cards");
    if (!Array.isArray(raw) || !raw.every((c) => typeof c === "string")) {
      throw h.error(`${h.name("cards")} must be a list of card strings such as "Td"`);
    }
    const cards = raw.map((c) => {
      const card = parseCard(c);
      if (card === null) throw h.error(`${h.name("cards")}: bad card ${JSON.stringify(c)}`);
      return card;
    });
    const low = isVoid ? 0 : 2;
    if (cards.length < low || cards.length > 3) throw h.error(`${h.name("cards")} must hold ${low} to 3 cards, not ${cards.length}`);
    const scores = h.get("scores");
    if (!Array.isArray(scores) || scores.length !== 2 || !scores.every((s) => isInt(s) && s >= 0 && s <= 9)) {
      throw h.error(`${h.name("scores")} must be two scores 0-9 such as [2, 5]`);
    }
    return { cards, scores: [scores[0], scores[1]] };
  }

  function readFairness(reader, rules) {
    const f = reader.child("fairness");
    const seed = f.text("server_seed", { nullable: true });
    if (seed !== null && !HEX64.test(seed)) throw f.error("fairness.server_seed must be 64 lowercase hex characters or null");
    const committed = f.text("commitment");
    if (!HEX64.test(committed)) throw f.error("fairness.commitment must be 64 lowercase hex characters");
    const clientSeed = f.text("client_seed");
    if (LONE_SURROGATE.test(clientSeed)) throw f.error("fairness.client_seed must be valid Unicode text");
    const nonce = f.integer("nonce", { minimum: 0 });
    const size = 52 * rules.decks;
    const cut = f.optionalInteger("cut", { minimum: 0 });
    if (cut !== null && cut >= size) throw f.error(`fairness.cut must be below ${size} (the shoe's cards), not ${cut}`);
    const position = f.integer("position", { minimum: 0 });
    if (position >= size) throw f.error(`fairness.position must be below ${size} (the shoe's cards)`);
    const noncesUsed = f.has("nonces_used") && f.data.nonces_used !== null ? f.integer("nonces_used", { minimum: 0 }) : null;
    let undealtShoes = null;
    if (f.has("undealt_shoes") && f.data.undealt_shoes !== null) {
      if (!Array.isArray(f.data.undealt_shoes)) throw f.error("fairness.undealt_shoes must be a list of shoes or null");
      undealtShoes = f.data.undealt_shoes.map((item, index) => {
        const shoe = new Reader(f.line, item, `fairness.undealt_shoes.${index}`);
        return {
          nonce: shoe.integer("nonce", { minimum: 0 }),
          table_id: shoe.text("table_id", { optional: true }),
          cut: shoe.has("cut") ? shoe.optionalInteger("cut", { minimum: 0 }) : null,
        };
      });
    }
    const source = f.text("client_seed_source", { optional: true });
    if (source !== null && !SOURCES.includes(source)) throw f.error("fairness.client_seed_source must be client, server or null");
    let clientSeeds = null;
    if (f.has("client_seeds") && f.data.client_seeds !== null) {
      const both = f.child("client_seeds");
      clientSeeds = [both.text("banker"), both.text("player")];
    }
    return {
      server_seed: seed,
      commitment: committed,
      client_seed: clientSeed,
      nonce,
      cut,
      position,
      noncesUsed,
      undealtShoes,
      source,
      clientSeeds,
    };
  }

  const SOURCES = ["client", "server"];

  /** A seat's client seed: the banker's and the player's, as the JSON array ["b","p"]. */
  const seatClientSeed = (banker, player) => JSON.stringify([banker, player]);

  /** A seat's client seed is its two participants', the banker's first. */
  function checkClientSeeds(record) {
    const f = record.fairness;
    if (f.clientSeeds === null) return [];
    const expected = seatClientSeed(...f.clientSeeds);
    if (expected === f.client_seed) return [];
    return [
      difference("fairness.client_seed", expected, f.client_seed, "a seat's client seed is the banker's and the player's, in that order"),
    ];
  }

  function readBets(reader) {
    const b = reader.child("bets");
    const records = [];
    for (const key of Object.keys(b.data)) {
      if (!BET_TYPES.includes(key)) throw b.error(`unknown bet ${JSON.stringify(key)} in bets: one of ${BET_TYPES.join(", ")}`);
      const bet = b.child(key);
      const stake = bet.integer("stake", { minimum: 1 });
      const result = bet.text("result");
      if (!RESULTS.includes(result)) throw bet.error(`${bet.name("result")} must be one of ${RESULTS.join(", ")}`);
      const returned = bet.integer("returned", { minimum: 0 });
      const fee = bet.has("fee") ? bet.integer("fee", { minimum: 0 }) : 0;
      const multiplier = bet.has("multiplier") ? bet.integer("multiplier", { minimum: 1 }) : 1;
      records.push({ bet: key, stake, result, returned, fee, multiplier });
    }
    return records.sort((x, y) => BET_TYPES.indexOf(x.bet) - BET_TYPES.indexOf(y.bet));
  }

  /** One round from its parsed JSON object (Python's parse_record); throws HistoryFormatError. */
  function parseRecord(data, line = 0) {
    const r = new Reader(line, data);
    if (r.get("format") !== FORMAT) throw r.error(`format must be ${JSON.stringify(FORMAT)}, not ${showShort(r.get("format"))}`);
    const id = r.text("id");
    const rulesName = r.text("rules");
    let rules;
    try {
      rules = getRules(rulesName);
    } catch (error) {
      throw r.error(`rules: ${error.message}`);
    }
    const voidReason = r.text("void_reason", { nullable: true });
    const isVoid = voidReason !== null;
    const fairness = readFairness(r, rules);
    const player = readHand(r, "player", isVoid);
    const banker = readHand(r, "banker", isVoid);
    const role = r.text("role", { optional: true }) || "player";
    if (role !== "player" && role !== "banker") throw r.error(`role must be player or banker, not ${showShort(role)}`);
    const fee = r.has("fee") ? r.integer("fee", { minimum: 0 }) : 0;
    const winnerText = r.get("winner");
    let winner = null;
    if (!(winnerText === null && isVoid)) {
      if (!["player", "banker", "tie"].includes(winnerText)) {
        throw r.error(`winner must be player, banker or tie${isVoid ? " (or null)" : ""}, not ${showShort(winnerText)}`);
      }
      winner = winnerText;
    }
    const bets = readBets(r);
    for (const bet of bets) {
      if (!Object.hasOwn(rules.bets, bet.bet)) throw r.error(`bets: ${rulesName} has no ${bet.bet} bet`);
    }
    return {
      line,
      id,
      rules,
      fairness,
      player,
      banker,
      winner,
      bets,
      win: r.integer("win", { minimum: 0 }),
      balance_before: r.integer("balance_before"),
      balance_after: r.integer("balance_after"),
      void_reason: voidReason,
      table_id: r.text("table_id", { optional: true }),
      mode: r.text("mode", { optional: true }),
      time: r.text("time", { optional: true }),
      role,
      fee,
      signature: r.text("signature", { optional: true }),
      key_id: r.text("key_id", { optional: true }),
      signed: r.has("signature") ? lineMessage(data) : null,
      shared: r.has("shared") && isObject(r.data.shared) ? r.data.shared : null,
      table_log: readTableLog(r),
      lightning: readLightning(r),
      get isVoid() {
        return this.void_reason !== null;
      },
      get staked() {
        return this.bets.reduce((sum, b) => sum + b.stake, 0);
      },
      get fees() {
        return this.bets.reduce((sum, b) => sum + b.fee, 0);
      },
      get cardsUsed() {
        return this.player.cards.length + this.banker.cards.length;
      },
    };
  }

  const ONE_CARD = 'a multiplier card is {"card": "Ah", "multiplier": 5}';

  /** A multiplier table's multiplier cards, as Python's history reads them. */
  function readLightning(r) {
    const raw = r.has("lightning") ? r.data.lightning : null;
    if (raw === null) return [];
    if (!Array.isArray(raw)) throw r.error('lightning must be a list of {"card": "Ah", "multiplier": 5}');
    const cards = raw.map((item, index) => {
      const fail = (message) => r.error(`lightning.${index}: ${message}`);
      if (!isObject(item)) throw fail(ONE_CARD);
      if (typeof item.card !== "string") throw fail('a multiplier card\'s "card" is a card such as "Ah"');
      const card = parseCard(item.card);
      if (card === null) throw fail(`bad card ${JSON.stringify(item.card)}: a card is a rank and a suit, such as Ah or Td`);
      if (!isInt(item.multiplier) || item.multiplier < 2) {
        throw fail(`a multiplier is a whole number from 2, not ${showShort(item.multiplier ?? null)}`);
      }
      return { card, multiplier: item.multiplier };
    });
    if (new Set(cards.map((one) => one.card)).size !== cards.length) {
      throw r.error("lightning: the multiplier cards of a coup are distinct cards");
    }
    return cards;
  }

  function readTableLog(r) {
    const entries = r.has("table_log") ? r.get("table_log") : null;
    if (entries === null) return null;
    if (!Array.isArray(entries) || !entries.every(isObject)) throw r.error("table_log must be a list of log entries (objects)");
    return entries;
  }

  /** Every round of an export, given its text (JSON lines, numbered from 1; blank lines skipped). */
  function parseHistory(text) {
    const records = [];
    String(text)
      .split(/\r?\n/)
      .forEach((lineText, index) => {
        const line = index + 1;
        if (!lineText.trim()) return;
        let data;
        try {
          data = JSON.parse(lineText);
        } catch (error) {
          throw new HistoryFormatError(line, `not JSON (${error.message})`);
        }
        records.push(parseRecord(data, line));
      });
    return records;
  }

  // -- the checks of one round (baccarat.fairness.verify) --------------------------------------

  const UNREVEALED = "seed not revealed";
  const VOID_BEFORE = "before the result";
  const VOID_AFTER = "after the result";
  const VOID_AFTER_WIN = "after a win";

  /** Python's json.dumps, for the values a report shows. */
  function pyJson(value) {
    if (Array.isArray(value)) return `[${value.map(pyJson).join(", ")}]`;
    if (isObject(value)) {
      return `{${Object.entries(value)
        .map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`)
        .join(", ")}}`;
    }
    return JSON.stringify(value);
  }

  /** A recorded or expected value as text: cards as `Kd 2c 9h`, the rest as JSON. */
  function show(value) {
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.length ? value.join(" ") : "(no cards)";
    if (typeof value === "string") return value;
    return pyJson(value);
  }

  /** One field of a round that is not what the seeds and the rules give. */
  function difference(field, expected, recorded, note = "") {
    return { field, expected, recorded, note };
  }

  function differenceText(d) {
    const text = `${d.field}: expected ${show(d.expected)}, recorded ${show(d.recorded)}`;
    return d.note ? `${text} (${d.note})` : text;
  }

  // The rounds of one cut shoe share its order: derive it once.
  const orders = new Map();

  /** The round's shoe order after the cut, or null while the seed is not revealed. */
  async function derivedOrder(record) {
    const f = record.fairness;
    if (f.server_seed === null) return null;
    const key = [f.server_seed, f.client_seed, f.nonce, record.rules.decks, f.cut].join("\u0000");
    if (!orders.has(key)) {
      if (orders.size > 64) orders.clear();
      orders.set(key, shuffledOrder(f.server_seed, f.client_seed, String(f.nonce), record.rules.decks, f.cut));
    }
    return orders.get(key);
  }

  async function checkCommitment(record) {
    const f = record.fairness;
    if (f.server_seed === null) return [];
    const expected = await commitment(f.server_seed);
    if (expected === f.commitment) return [];
    const note = "sha256 of the revealed server seed is not the commitment shown before play";
    return [difference("fairness.commitment", expected, f.commitment, note)];
  }

  function checkPosition(record, order) {
    const { rules, fairness: f } = record;
    const diffs = [];
    if (rules.shuffle === "fresh") {
      if (f.cut !== null) diffs.push(difference("fairness.cut", null, f.cut, "a fresh-shuffle table has no cut"));
      if (f.position !== 0) {
        diffs.push(difference("fairness.position", 0, f.position, "a fresh-shuffle round deals from the top of its own shuffle"));
      }
      return diffs;
    }
    const cutCard = rules.cutCard;
    if (f.position >= cutCard) {
      const note = `the cut card lies before card ${cutCard}: no coup starts after it`;
      diffs.push(difference("fairness.position", `below ${cutCard}`, f.position, note));
    }
    if (rules.burn) {
      let burned;
      let note;
      if (order !== null) {
        burned = 1 + burnCount(order[0]);
        note = `the turned first card ${order[0]} and ${burned - 1} more are burned`;
      } else {
        burned = 2;
        note = "a burn takes the turned first card and at least one more";
      }
      if (f.position < burned) diffs.push(difference("fairness.position", `at least ${burned}`, f.position, note));
    }
    return diffs;
  }

  /** Whether the recorded hands drew the third cards the tableau prescribes. */
  function tableauCheck(player, banker) {
    const p = score(player.cards.slice(0, 2));
    const b = score(banker.cards.slice(0, 2));
    if (isNatural(p) || isNatural(b)) {
      const diffs = [];
      for (const [name, cards] of [
        ["player", player.cards],
        ["banker", banker.cards],
      ]) {
        if (cards.length !== 2) {
          diffs.push(difference(`${name}.cards`, "2 cards", cards, `a natural (${p} against ${b}): both hands stand on two cards`));
        }
      }
      return diffs;
    }
    if (playerDraws(p) !== (player.cards.length === 3)) {
      const rule = playerDraws(p) ? "draws on 0-5" : "stands on 6-7";
      const expected = playerDraws(p) ? "3 cards" : "2 cards";
      return [difference("player.cards", expected, player.cards, `the player ${rule}; two-card score ${p}`)];
    }
    const third = player.cards.length === 3 ? cardValue(player.cards[2]) : null;
    const draws = bankerDraws(b, third);
    if (draws !== (banker.cards.length === 3)) {
      const after = third === null ? "the player stood" : `the player's third card is ${third}`;
      const note = `banker ${b} ${draws ? "draws" : "stands"} when ${after}`;
      return [difference("banker.cards", draws ? "3 cards" : "2 cards", banker.cards, note)];
    }
    return [];
  }

  const sameCards = (a, b) => a.length === b.length && a.every((card, i) => card === b[i]);
  const sameScores = (a, b) => a[0] === b[0] && a[1] === b[1];

  /** Cards, scores and winner; returns the differences and the coup to settle with. */
  function checkCoup(record, order) {
    const { rules, fairness: f, player, banker } = record;
    const diffs = [];
    let truth = null;
    if (order !== null) {
      // On a fresh-shuffle table the coup is dealt from the top whatever the export says.
      const start = rules.shuffle === "fresh" ? 0 : f.position;
      try {
        truth = playCoup(order.slice(start));
      } catch {
        diffs.push(difference("fairness.position", "a coup's cards", f.position, "too few cards left in the shoe for a coup"));
      }
    }
    let complete = true;
    let settled;
    if (truth !== null) {
      for (const [name, h, expected] of [
        ["player", player, truth.player],
        ["banker", banker, truth.banker],
      ]) {
        // A voided round may hold only the cards dealt before the malfunction.
        const prefix = record.isVoid ? expected.cards.slice(0, h.cards.length) : expected.cards;
        if (!sameCards(h.cards, prefix)) diffs.push(difference(`${name}.cards`, prefix, h.cards));
        if (!sameCards(h.cards, expected.cards)) complete = false;
        const expectedScores = hand(prefix).scores;
        if (!sameScores(h.scores, expectedScores)) diffs.push(difference(`${name}.scores`, expectedScores, h.scores));
      }
      // A voided coup that was not completed has no winner.
      settled = complete || !record.isVoid ? truth : null;
    } else {
      const twoEach = player.cards.length >= 2 && banker.cards.length >= 2;
      // Without the seed, a voided round counts as dealt out when it names a winner.
      complete = !record.isVoid || (twoEach && record.winner !== null);
      if (complete) diffs.push(...tableauCheck(player, banker));
      for (const [name, h] of [
        ["player", player],
        ["banker", banker],
      ]) {
        const expectedScores = hand(h.cards).scores;
        if (!sameScores(h.scores, expectedScores)) {
          diffs.push(difference(`${name}.scores`, expectedScores, h.scores, "the scores of the recorded cards"));
        }
      }
      settled = complete ? coupOf(hand(player.cards), hand(banker.cards)) : null;
    }
    const winner = settled === null ? null : settled.winner;
    // A voided round may leave the winner null; otherwise it must be the coup's.
    if (record.winner !== winner && !(record.isVoid && record.winner === null)) {
      diffs.push(difference("winner", winner, record.winner, winner !== null ? "" : "the coup was not completed before the void"));
    }
    return [diffs, settled];
  }

  /** A multiplier table's round's multiplier cards from its seeds, nonce and position; []
   * at other tables; null while the seed is not revealed. */
  async function derivedLightning(record) {
    const terms = record.rules.multipliers;
    const f = record.fairness;
    if (!terms) return [];
    if (f.server_seed === null) return null;
    return deriveLightning(f.server_seed, f.client_seed, String(f.nonce), terms, f.position);
  }

  const sameLightning = (a, b) => a !== null && b !== null && a.card === b.card && a.multiplier === b.multiplier;

  /** The multiplier cards, each changed, added or missing one named; the differences and the
   * cards to settle with (the derived ones, or the recorded ones while the seed is secret). */
  async function checkLightning(record) {
    const recorded = record.lightning;
    const terms = record.rules.multipliers;
    if (!terms) {
      if (!recorded.length) return [[], []];
      const note = `${record.rules.name} has no multiplier cards`;
      return [[difference("lightning", [], recorded.map(lightningText), note)], []];
    }
    const expected = await derivedLightning(record);
    if (expected === null) {
      // Not revealed yet: what the published terms allow.
      const counts = Object.keys(terms.counts).map(Number);
      const values = Object.keys(terms.values).map(Number);
      const diffs = [];
      if (!counts.includes(recorded.length)) {
        diffs.push(difference("lightning", "a count the terms give", recorded.length, `a coup has ${counts.join(", ")} multiplier cards`));
      }
      recorded.forEach((one, i) => {
        if (!values.includes(one.multiplier)) {
          diffs.push(
            difference(`lightning.${i}`, "a published multiplier", lightningText(one), `the multipliers are ${values.join(", ")}`),
          );
        }
      });
      return [diffs, recorded];
    }
    const diffs = [];
    for (let i = 0; i < Math.max(expected.length, recorded.length); i += 1) {
      const want = expected[i] ?? null;
      const got = recorded[i] ?? null;
      if (sameLightning(want, got)) continue;
      let note;
      if (want !== null && got !== null && want.card === got.card) note = `the multiplier of ${want.card}`;
      else if (want === null || got === null) note = `a multiplier card ${want === null ? "too many" : "missing"}`;
      else note = "the multiplier card";
      diffs.push(difference(`lightning.${i}`, lightningText(want), lightningText(got), note));
    }
    return [diffs, expected];
  }

  /** Each bet's fee: its share of the stake at a multiplier table, none elsewhere. */
  function checkFees(record) {
    const diffs = [];
    for (const bet of record.bets) {
      let fee;
      try {
        fee = feeOf(record.rules, bet.stake);
      } catch (error) {
        diffs.push(difference(`bets.${bet.bet}.stake`, "a whole fee", bet.stake, error.message));
        continue;
      }
      if (bet.fee !== fee) {
        const terms = record.rules.multipliers;
        const note = terms ? `${terms.fee} of the stake ${bet.stake}` : "no fee here";
        diffs.push(difference(`bets.${bet.bet}.fee`, fee, bet.fee, note));
      }
    }
    return diffs;
  }

  /** The round's bets settled against its coup and multiplier cards (a stake whose fee is not
   * whole, named by the fee check, is settled as if fee-less). */
  function settleRound(record, coup, lightning) {
    try {
      return settle(record.rules, record.bets, coup, lightning);
    } catch (error) {
      if (!(error instanceof BetError)) throw error;
      return settle({ ...record.rules, multipliers: null }, record.bets, coup);
    }
  }

  function checkMoney(record, coup, lightning = []) {
    const diffs = checkFees(record);
    let expectedWin;
    if (record.isVoid) {
      const note = "a voided round returns every stake";
      for (const bet of record.bets) {
        const name = `bets.${bet.bet}`;
        if (bet.result !== "void") diffs.push(difference(`${name}.result`, "void", bet.result, note));
        if (bet.returned !== bet.stake) diffs.push(difference(`${name}.returned`, bet.stake, bet.returned, note));
      }
      expectedWin = record.staked;
    } else {
      const settlement = settleRound(record, coup, lightning);
      record.bets.forEach((bet, i) => {
        const got = settlement[i];
        const name = `bets.${bet.bet}`;
        if (bet.result !== got.result) diffs.push(difference(`${name}.result`, got.result, bet.result));
        if (bet.multiplier !== got.multiplier) {
          diffs.push(difference(`${name}.multiplier`, got.multiplier, bet.multiplier, "the product of its paid cards' multipliers"));
        }
        if (bet.returned !== got.returned) {
          const outcome = coup.winner === "tie" ? "a tie" : `a ${coup.winner} win`;
          diffs.push(difference(`${name}.returned`, got.returned, bet.returned, `${bet.bet} bet of ${bet.stake} on ${outcome}`));
        }
      });
      expectedWin = settlement.reduce((sum, b) => sum + b.returned, 0);
    }
    if (record.win !== expectedWin) diffs.push(difference("win", expectedWin, record.win, "the sum of what the bets return"));
    let expectedAfter = record.balance_before - record.staked + expectedWin;
    let note = `balance_before ${record.balance_before} - stakes ${record.staked} + win ${expectedWin}`;
    if (record.fees && !record.isVoid) {
      // A multiplier table's fees, taken with the stakes (a void returns them too).
      expectedAfter -= record.fees;
      note = `balance_before ${record.balance_before} - stakes ${record.staked} - fees ${record.fees} + win ${expectedWin}`;
    }
    if (record.role === "banker") {
      // The banker's side of a player-banked round: the stakes in, the returns and the
      // casino's fee out (a void gives everything back).
      const fee = record.isVoid ? 0 : record.fee;
      expectedAfter = record.balance_before + record.staked - expectedWin - fee;
      note = `the banker's balance_before ${record.balance_before} + stakes ${record.staked} - win ${expectedWin} - fee ${fee}`;
    }
    if (record.balance_after !== expectedAfter) diffs.push(difference("balance_after", expectedAfter, record.balance_after, note));
    return diffs;
  }

  /** Every difference of one round on its own, and the coup it settles with (with its
   * multiplier cards; null: no coup). */
  async function checkRound(record) {
    const order = await derivedOrder(record);
    const diffs = await checkCommitment(record);
    diffs.push(...checkClientSeeds(record));
    diffs.push(...checkPosition(record, order));
    const [coupDiffs, coup] = checkCoup(record, order);
    diffs.push(...coupDiffs);
    const [lightningDiffs, lightning] = await checkLightning(record);
    diffs.push(...lightningDiffs);
    diffs.push(...checkMoney(record, coup, lightning));
    return [diffs, coup === null ? null : { coup, lightning }];
  }

  /** Whether a voided round was voided before its result, after it, or after a win (its
   * bets returning more than their stakes and fees). */
  function voidKind(record, dealt) {
    if (dealt === null) return VOID_BEFORE;
    const settlement = settleRound(record, dealt.coup, dealt.lightning);
    let net = settlement.reduce((sum, b) => sum + b.returned - b.stake - b.fee, 0);
    if (record.role === "banker") net = -net - record.fee;
    return net > 0 ? VOID_AFTER_WIN : VOID_AFTER;
  }

  function roundReport(record, diffs, coup) {
    const base = { line: record.line, id: record.id };
    if (diffs.length) return { ...base, status: "differs", reason: null, differences: diffs };
    if (record.isVoid) return { ...base, status: "voided", reason: voidKind(record, coup), differences: [] };
    if (record.fairness.server_seed === null) return { ...base, status: "unverifiable", reason: UNREVEALED, differences: [] };
    return { ...base, status: "verified", reason: null, differences: [] };
  }

  function verdict(report) {
    if (report.status === "voided") return `voided ${report.reason}`;
    return report.reason ? `${report.status}: ${report.reason}` : report.status;
  }

  // -- across rounds -----------------------------------------------------------------------------

  /** A round dealt from the exporter's seeds: their own, or a seat's (both participants'). */
  const own = (record) => record.role !== "banker" || record.fairness.clientSeeds !== null;

  /** A shared table's coup (a bettor's line, or the shoe's own record): from the shoe's seed. */
  const tableShoe = (record) => record.shared !== null || record.table_log !== null;

  /** A shared table's shoe is the one shuffle of its seed: nonce 0, and nobody cuts it. */
  function oneShuffle(record) {
    const f = record.fairness;
    const note = "a shared table's shoe has a seed of its own, shuffled once (nonce 0, cut 0)";
    return [
      ["fairness.nonce", f.nonce],
      ["fairness.cut", f.cut],
    ]
      .filter(([, value]) => value !== 0)
      .map(([name, value]) => difference(name, 0, value, note));
  }

  /** Per commitment, the server seed revealed on one of its lines, and that line. */
  async function revealedSeeds(records) {
    const seeds = new Map();
    for (const record of records) {
      const f = record.fairness;
      if (f.server_seed === null || seeds.has(f.commitment)) continue;
      if ((await commitment(f.server_seed)) === f.commitment) seeds.set(f.commitment, [f.server_seed, record.line]);
    }
    return seeds;
  }

  /** The round with its commitment's revealed seed, and a difference if it showed another. */
  function withRevealedSeed(record, seeds) {
    const f = record.fairness;
    const found = seeds.get(f.commitment);
    if (!found) return [record, []];
    const [seed, line] = found;
    if (f.server_seed === null) {
      const copy = copyRecord(record);
      copy.fairness = { ...f, server_seed: seed };
      return [copy, []];
    }
    if (f.server_seed === seed) return [record, []];
    return [record, [difference("fairness.server_seed", seed, f.server_seed, `the seed of this commitment, revealed on line ${line}`)]];
  }

  function copyRecord(record) {
    return Object.defineProperties({ ...record }, Object.getOwnPropertyDescriptors(record));
  }

  /** Where the first coup of a cut shoe starts: right after its burn (null: unknown). */
  async function shoeStart(record) {
    if (!record.rules.burn) return 0;
    const order = await derivedOrder(record);
    return order === null ? null : 1 + burnCount(order[0]);
  }

  function push(map, index, ...diffs) {
    if (!map.has(index)) map.set(index, []);
    map.get(index).push(...diffs);
  }

  /** Cross-round checks of the shuffles, keyed by index into `records`. */
  async function checkShuffles(records) {
    const groups = new Map();
    records.forEach((record, index) => {
      const key = `${record.fairness.commitment}:${record.fairness.nonce}`;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(index);
    });
    const found = new Map();
    for (const indices of groups.values()) {
      const first = records[indices[0]];
      const nonce = first.fairness.nonce;
      if (indices.some((i) => records[i].rules.shuffle === "fresh")) {
        const note = `the shuffle with nonce ${nonce} was already used on line ${first.line}`;
        for (const i of indices.slice(1)) {
          push(found, i, difference("fairness.nonce", "a nonce not used before under this server seed", nonce, note));
        }
        continue;
      }
      // A shared table's shoe is dealt to every bettor: its own record shows it whole.
      if (indices.some((i) => records[i].shared !== null)) continue;
      const start = await shoeStart(first);
      if (start !== null && first.fairness.position !== start) {
        const note = start
          ? `the first coup of the shoe (nonce ${nonce}) starts where its burn ends`
          : `the first coup of the shoe (nonce ${nonce}) starts at its first card`;
        push(found, indices[0], difference("fairness.position", start, first.fairness.position, note));
      }
      let previous = first;
      for (const i of indices.slice(1)) {
        const record = records[i];
        const diffs = [];
        const note = `one shoe (nonce ${nonce}) is one shuffle, as on line ${first.line}`;
        for (const [name, want, got] of [
          ["rules", first.rules.name, record.rules.name],
          ["fairness.client_seed", first.fairness.client_seed, record.fairness.client_seed],
          ["fairness.cut", first.fairness.cut, record.fairness.cut],
        ]) {
          if (want !== got) diffs.push(difference(name, want, got, note));
        }
        const begin = previous.fairness.position;
        const end = begin + previous.cardsUsed;
        const position = record.fairness.position;
        if (position < end) {
          diffs.push(
            difference("fairness.position", end, position, `overlaps the coup on line ${previous.line}, cards ${begin}-${end - 1}`),
          );
        } else if (position > end) {
          const skipped = position === end + 1 ? `card ${end}` : `cards ${end}-${position - 1}`;
          diffs.push(difference("fairness.position", end, position, `${skipped} after the coup on line ${previous.line} went to no coup`));
        }
        push(found, i, ...diffs);
        previous = record;
      }
    }
    return found;
  }

  // -- a shared shoe's log and its beacon round (Python's fairness.beacon) ----------------------

  const KNOWN_CHAINS = {
    "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971":
      "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a",
  };

  async function sha256Hex(bytes) {
    return toHex(new Uint8Array(await subtle().digest("SHA-256", bytes)));
  }

  // drand's scheme bls-unchained-g1-rfc9380 (Python's fairness.beacon): the domain separation
  // tag of the round's message hashed to G1.
  const DST = "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_";

  /** Whether `signature` (hex) is the chain's BLS signature of the round (Python's
   * beacon.verify_signature): a point on G1 (48 bytes compressed) of sha256(round as 8
   * big-endian bytes) hashed to G1 with DST, under the public key on G2 (96 bytes
   * compressed), both points decoded with their subgroup checks, e(sig, g2) = e(H(round),
   * public key); a round that is not a whole number from 0 has none. The pairing is
   * noble-curves' (vendor/noble-curves, loaded before this). */
  async function verifySignature(publicKey, round, signature) {
    const bls = global.nobleBls12381;
    if (!bls) {
      throw new FairnessError("the BLS library (vendor/noble-curves) did not load: a beacon round's signature cannot be checked");
    }
    if (!Number.isSafeInteger(round) || round < 0) return false;
    const number = new Uint8Array(8);
    new DataView(number.buffer).setBigUint64(0, BigInt(round));
    const message = new Uint8Array(await subtle().digest("SHA-256", number));
    const sigs = bls.shortSignatures;
    try {
      return sigs.verify(sigs.Signature.fromHex(signature), sigs.hash(message, DST), bls.G2.Point.fromHex(publicKey));
    } catch {
      return false; // not a point, or not in its subgroup
    }
  }

  function hexBytes(text) {
    return Uint8Array.from(text.match(/../g) || [], (pair) => Number.parseInt(pair, 16));
  }

  /** The hash of a log entry: sha256 of its canonical JSON without `hash`. */
  async function entryHash(entry) {
    const body = Object.fromEntries(Object.entries(entry).filter(([k]) => k !== "hash"));
    return sha256Hex(new TextEncoder().encode(canonical(body)));
  }

  async function checkLog(entries) {
    const problems = [];
    for (const [index, entry] of entries.entries()) {
      const seq = entry.seq;
      if (entry.hash !== (await entryHash(entry))) problems.push(`log entry ${seq}: its hash is not the hash of its content`);
      if (index && entry.prev !== entries[index - 1].hash) problems.push(`log entry ${seq}: prev is not the hash of the entry before it`);
      if (index && seq !== Number(entries[index - 1].seq || 0) + 1) {
        problems.push(`log entry ${seq}: does not follow entry ${entries[index - 1].seq}`);
      }
    }
    return problems;
  }

  /** A shared shoe's log against the line (Python's _log_differences): the chain of its
   * entries, the commitment, the beacon round (named before it was published, signed by its
   * chain, its randomness in the client seed) and the revealed seed; and a note on what it
   * guarantees. */
  async function logDifferences(record) {
    const entries = record.table_log || [];
    const fair = record.fairness;
    const diffs = (await checkLog(entries)).map((p) => difference("table_log", "a hash-chained log", "broken", p));
    const byType = {};
    for (const entry of entries) byType[String(entry.type)] = entry;
    const commit = byType.commit;
    if (!commit) return [[...diffs, difference("table_log", "the shoe's commit entry", null)], null];
    if (commit.commitment !== fair.commitment) {
      diffs.push(difference("table_log.commit.commitment", fair.commitment, commit.commitment ?? null, "the log committed another seed"));
    }
    const base = String(commit.client_seed);
    const named = commit.beacon;
    const shoe = `shoe ${commit.number} of table ${commit.table}`;
    let note = null;
    let expected;
    if (!isObject(named)) {
      expected = base;
      note = `${shoe} was dealt from the committed seed alone (no beacon): its order was fixed before any bet, but the operator made the seed`;
    } else {
      const entered = byType.beacon;
      if (!entered) {
        const missing = `beacon round ${named.round}`;
        return [[...diffs, difference("table_log", missing, null, "the shoe was dealt without its beacon round")], null];
      }
      const signature = String(entered.signature);
      const value = /^(?:[0-9a-f]{2})+$/.test(signature) ? await sha256Hex(hexBytes(signature)) : null;
      expected = value === null ? base : `${base}/${value}`;
      for (const [name, want, got] of [
        ["round", named.round, entered.round],
        ["chain", named.chain, entered.chain],
        ["randomness", value, entered.randomness],
      ]) {
        if (want !== got) diffs.push(difference(`table_log.beacon.${name}`, want ?? null, got ?? null));
      }
      const known = KNOWN_CHAINS[String(named.chain)];
      // A known chain's signature is checked against the key this verifier carries.
      const key = known || String(named.public_key);
      if (known && named.public_key !== known) {
        diffs.push(difference("table_log.commit.beacon.public_key", known, named.public_key ?? null, "not the chain's public key"));
      }
      if (!(await verifySignature(key, named.round, signature))) {
        diffs.push(difference("table_log.beacon.signature", `the chain's signature of round ${named.round}`, signature));
      }
      // Both whole numbers, the naming first; anything else (a time missing, text) proves
      // nothing: a difference, as much as a naming too late (Python's _log_differences).
      const [namedUs, publishedUs] = [commit.time_us, named.published_us];
      if (!(Number.isInteger(namedUs) && Number.isInteger(publishedUs) && namedUs < publishedUs)) {
        diffs.push(
          difference(
            "table_log.commit.time_us",
            `before ${named.published_us}`,
            commit.time_us ?? null,
            "the round was named after it was published",
          ),
        );
      }
      if (!known) {
        note = `${shoe} took round ${named.round} of beacon chain ${named.chain}, not a known public chain: its randomness is only as independent as whoever runs that beacon`;
      }
    }
    if (fair.client_seed !== expected) {
      diffs.push(difference("fairness.client_seed", expected, fair.client_seed, "the shoe's client seed is the one its log makes"));
    }
    const revealed = byType.reveal;
    if (revealed && fair.server_seed !== null && revealed.server_seed !== fair.server_seed) {
      diffs.push(difference("table_log.reveal.server_seed", fair.server_seed, revealed.server_seed ?? null));
    }
    return [diffs, note];
  }

  /** The shared shoes' logs, once per shoe, by index (Python's check_table_logs). */
  async function checkTableLogs(records) {
    const found = new Map();
    const notes = new Map();
    const done = new Map();
    for (const [index, record] of records.entries()) {
      if (record.table_log === null) continue;
      const key = canonical([record.fairness.commitment, record.fairness.client_seed, record.fairness.server_seed, record.table_log]);
      if (!done.has(key)) done.set(key, await logDifferences(record));
      const [diffs, note] = done.get(key);
      if (diffs.length) push(found, index, ...diffs);
      if (note !== null) {
        if (!notes.has(note)) notes.set(note, []);
        notes.get(note).push(record.line);
      }
    }
    return [found, [...notes].map(([note, lines]) => finding("table_log", note, lines))];
  }

  /** Something about the export as a whole: a finding fails it, a note only informs. */
  function finding(kind, message, lines = [], committed = null, amount = null) {
    return { kind, message, lines, commitment: committed, amount };
  }

  const short = (committed) => committed.slice(0, 12);

  /** The ranges [a, b] of 0 .. count-1 that are not in `used`. */
  function missing(used, count) {
    const gaps = [];
    let expected = 0;
    for (const n of [...used].filter((u) => u < count).sort((a, b) => a - b)) {
      if (n > expected) gaps.push([expected, n - 1]);
      expected = n + 1;
    }
    if (expected < count) gaps.push([expected, count - 1]);
    return gaps;
  }

  /** Per revealed commitment, the own rounds and undealt shoes use 0 .. nonces_used-1 once;
   * a shared table's coups, the one shuffle of their shoe's seed. */
  function checkNonces(records) {
    const commits = new Map();
    const diffs = new Map();
    for (const [index, record] of records.entries()) {
      if (tableShoe(record)) {
        const found = oneShuffle(record);
        if (found.length) push(diffs, index, ...found);
        continue;
      }
      if (!own(record)) continue;
      const f = record.fairness;
      if (!commits.has(f.commitment))
        commits.set(f.commitment, { lines: [], indices: [], nonces: new Map(), counts: new Map(), undealt: new Map(), revealed: false });
      const seen = commits.get(f.commitment);
      seen.lines.push(record.line);
      seen.indices.push(index);
      if (!seen.nonces.has(f.nonce)) seen.nonces.set(f.nonce, record.line);
      seen.revealed = seen.revealed || f.server_seed !== null;
      if (f.noncesUsed !== null && !seen.counts.has(f.noncesUsed)) seen.counts.set(f.noncesUsed, record.line);
      for (const shoe of f.undealtShoes || []) if (!seen.undealt.has(shoe.nonce)) seen.undealt.set(shoe.nonce, shoe);
    }
    const findings = [];
    const notes = [];
    const unrevealed = [...commits].filter(([, s]) => !s.revealed).map(([c]) => c);
    if (unrevealed.length) {
      notes.push(
        finding(
          "unchecked",
          `${unrevealed.length} commitment(s) not revealed yet (${unrevealed.map(short).join(", ")}): their nonces are checked for gaps once the seed is revealed (rotate it, then export again)`,
        ),
      );
    }
    const legacy = [...commits].filter(([, s]) => s.revealed && !s.counts.size).map(([c]) => c);
    if (legacy.length) {
      notes.push(
        finding(
          "unchecked",
          `${legacy.length} revealed commitment(s) without nonces_used (${legacy.map(short).join(", ")}): an export written before it was recorded; skipped nonces and missing rounds could not be checked there`,
        ),
      );
    }
    const banked = new Set(records.filter((r) => !own(r)).map((r) => r.fairness.commitment));
    for (const c of commits.keys()) banked.delete(c);
    if (banked.size) {
      notes.push(
        finding(
          "unchecked",
          `${banked.size} commitment(s) of rounds you banked are the other players': their nonces are not checked here (the player's own export checks them)`,
        ),
      );
    }
    for (const [committed, seen] of commits) {
      if (!seen.revealed || !seen.counts.size) continue;
      if (seen.counts.size > 1) {
        const pairs = [...seen.counts].sort((a, b) => a[0] - b[0]);
        findings.push(
          finding(
            "nonces_used",
            `commitment ${short(committed)}: its lines disagree on nonces_used (${pairs.map(([n, l]) => `${n} on line ${l}`).join(", ")})`,
            [...seen.counts.values()].sort((a, b) => a - b),
            committed,
          ),
        );
      }
      const count = Math.min(...seen.counts.keys());
      for (const index of seen.indices) {
        const f = records[index].fairness;
        if (f.nonce >= count) {
          const note = `the seed gave out ${count} nonces (nonces_used, published at rotation)`;
          push(diffs, index, difference("fairness.nonce", `below ${count}`, f.nonce, note));
        }
      }
      for (const [nonce, shoe] of [...seen.undealt].sort((a, b) => a[0] - b[0])) {
        const where = shoe.table_id ? `at ${shoe.table_id}` : "at a cut-shoe table";
        const cut = shoe.cut === null ? "" : `, cut at ${shoe.cut}`;
        if (seen.nonces.has(nonce)) {
          const line = seen.nonces.get(nonce);
          findings.push(
            finding(
              "undealt_shoe",
              `commitment ${short(committed)}: nonce ${nonce} is said to be a shoe never dealt, but dealt the round on line ${line}`,
              [line],
              committed,
            ),
          );
        } else if (nonce >= count) {
          findings.push(
            finding(
              "undealt_shoe",
              `commitment ${short(committed)}: undealt shoe nonce ${nonce} is beyond the ${count} nonces the seed gave out`,
              [],
              committed,
            ),
          );
        } else {
          notes.push(
            finding(
              "undealt_shoe",
              `commitment ${short(committed)}: nonce ${nonce} is a shoe you cut ${where}${cut} and never dealt from`,
              [],
              committed,
            ),
          );
        }
      }
      const gaps = missing(new Set([...seen.nonces.keys(), ...seen.undealt.keys()]), count);
      if (gaps.length) {
        const total = gaps.reduce((sum, [a, b]) => sum + b - a + 1, 0);
        const listed = gaps
          .slice(0, 20)
          .map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`))
          .join(", ");
        const more = gaps.length <= 20 ? "" : ` and ${gaps.length - 20} more ranges`;
        findings.push(
          finding(
            "nonce_gap",
            `commitment ${short(committed)}: ${total} of its ${count} nonces dealt no round in this export and no shoe was cut with them: nonce(s) ${listed}${more} (rounds removed from the export, or shuffles skipped)`,
            seen.lines.slice(0, 1),
            committed,
            total,
          ),
        );
      }
    }
    return [diffs, findings, notes];
  }

  /** Per mode, in file order: each round starts with the balance the one before ended with. */
  function checkBalances(records) {
    const notes = [];
    const last = new Map();
    for (const record of records) {
      const before = last.get(record.mode);
      last.set(record.mode, record);
      if (before === undefined || record.balance_before === before.balance_after) continue;
      const amount = record.balance_before - before.balance_after;
      const mode = record.mode ? ` (${record.mode})` : "";
      const signed = amount > 0 ? `+${amount}` : `${amount}`;
      notes.push(
        finding(
          "balance",
          `balance${mode}: line ${record.line} starts at ${record.balance_before}, line ${before.line} ended at ${before.balance_after} (${signed}): money moved between the rounds outside this export`,
          [before.line, record.line],
          null,
          amount,
        ),
      );
    }
    return notes;
  }

  /** `3, 5-7, 9`. */
  function ranges(numbers) {
    const parts = [];
    let run = [];
    const close = () => run.length && parts.push(run.length === 1 ? `${run[0]}` : `${run[0]}-${run[run.length - 1]}`);
    for (const n of [...numbers].sort((a, b) => a - b)) {
      if (run.length && n === run[run.length - 1] + 1) {
        run.push(n);
        continue;
      }
      close();
      run = [n];
    }
    close();
    return parts.join(", ");
  }

  /** The rounds whose client seed the server set: a note naming them (not a failure). */
  function checkSources(records) {
    const lines = records.filter((r) => r.fairness.source === "server").map((r) => r.line);
    if (!lines.length) return [];
    return [
      finding(
        "server_client_seed",
        `${lines.length} round(s) dealt with a client seed the server set, not you (line(s) ${ranges(lines)}): the server knew it when it committed its seed, so for these rounds the guarantee that it could not choose its seed does not hold (set your own client seed after every new commitment)`,
        lines,
      ),
    ];
  }

  // -- signatures and receipts (baccarat.fairness.signing) -----------------------------------

  const SIGNATURE_FIELDS = ["signature", "key_id"];
  const COMMITMENT_TYPE = "baccarat-commitment/1";
  const RECEIPTS_FORMAT = "baccarat-receipts/1";

  /** The signed text: JSON with sorted keys and no whitespace (Python's canonical). */
  function canonical(value) {
    if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
    if (value !== null && typeof value === "object") {
      const keys = Object.keys(value).sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
    }
    return JSON.stringify(value);
  }

  function lineMessage(data) {
    const rest = Object.fromEntries(Object.entries(data).filter(([k]) => !SIGNATURE_FIELDS.includes(k)));
    return canonical(rest);
  }

  function commitmentMessage(committed, mode, time) {
    return canonical({ commitment: committed, mode, time, type: COMMITMENT_TYPE });
  }

  function fromBase64(text, size, what) {
    let bytes;
    try {
      bytes = Uint8Array.from(global.atob(String(text).trim()), (c) => c.charCodeAt(0));
    } catch {
      throw new FairnessError(`${what} is not base64`);
    }
    if (bytes.length !== size) throw new FairnessError(`${what} must be ${size} bytes, not ${bytes.length}`);
    return bytes;
  }

  /** Public keys from what the casino publishes (GET /api/fairness, a receipts file, a list). */
  function parseKeys(data) {
    const list = data !== null && typeof data === "object" && !Array.isArray(data) ? data.signing_keys : data;
    if (!Array.isArray(list)) throw new FairnessError("no signing_keys: give the casino's public keys as a list");
    return list.map((item) => {
      const text = item !== null && typeof item === "object" ? item.public_key : item;
      if (typeof text !== "string") throw new FairnessError("each public key is base64 text (32 bytes)");
      return text;
    });
  }

  /** The keys a verifier trusts, by id (the first 16 hex of the sha256 of the 32 bytes). */
  async function publicKeys(texts) {
    const byId = new Map();
    for (const text of texts) {
      const raw = fromBase64(text, 32, "a public key");
      const id = toHex(new Uint8Array(await subtle().digest("SHA-256", raw))).slice(0, 16);
      let key;
      try {
        key = await subtle().importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
      } catch {
        throw new FairnessError("this browser cannot check Ed25519 signatures: use baccarat verify");
      }
      byId.set(id, key);
    }
    return { byId, ids: [...byId.keys()].sort() };
  }

  /** null when `signature` is the key's signature of `message`; else why not. */
  async function checkSignature(keys, signature, keyId, message) {
    if (typeof signature !== "string" || !signature) return "missing";
    if (typeof keyId !== "string" || !keys.byId.has(keyId)) return "unknown key";
    let raw;
    try {
      raw = fromBase64(signature, 64, "the signature");
    } catch {
      return "invalid";
    }
    const ok = await subtle().verify({ name: "Ed25519" }, keys.byId.get(keyId), raw, new TextEncoder().encode(message));
    return ok ? null : "invalid";
  }

  /** The receipts of a baccarat-receipts/1 file and the public keys it holds. */
  function parseReceipts(data) {
    if (data === null || typeof data !== "object" || data.format !== RECEIPTS_FORMAT) {
      throw new FairnessError(`not a receipts file: its format must be '${RECEIPTS_FORMAT}'`);
    }
    if (!Array.isArray(data.receipts)) throw new FairnessError("receipts must be a list");
    const text = (item, key) => (typeof item[key] === "string" ? item[key] : null);
    const receipts = data.receipts.map((item, i) => {
      if (item === null || typeof item !== "object" || Array.isArray(item)) throw new FairnessError(`receipt ${i + 1} must be an object`);
      if (typeof item.commitment !== "string" || typeof item.time !== "string") {
        throw new FairnessError(`receipt ${i + 1} needs a commitment and a time`);
      }
      const mode = text(item, "mode");
      return {
        index: i + 1,
        commitment: item.commitment,
        mode,
        time: item.time,
        signature: text(item, "signature"),
        key_id: text(item, "key_id"),
        table: text(item, "table"),
        seen: text(item, "seen"),
        message: commitmentMessage(item.commitment, mode ?? "", item.time),
      };
    });
    const keys = data.signing_keys !== undefined && data.signing_keys !== null ? parseKeys(data) : [];
    return [receipts, keys];
  }

  /** With the casino's keys, every line's signature; without, a note (Python's check_signatures). */
  async function checkSignatures(records, keys) {
    const signed = records.filter((r) => r.signature !== null);
    if (keys === null) {
      if (!signed.length) return [new Map(), []];
      const ids = [...new Set(signed.map((r) => r.key_id || "?"))].sort().join(", ");
      const message =
        `${signed.length} of ${records.length} lines are signed (key ${ids}): give the casino's ` +
        "public keys (baccarat verify --keys, or your receipts) to check the signatures";
      return [new Map(), [finding("unchecked", message)]];
    }
    const wanted = `a valid signature by ${keys.ids.length === 1 ? "key" : "one of the keys"} ${keys.ids.join(", ")}`;
    const diffs = new Map();
    for (const [index, record] of records.entries()) {
      const why = await checkSignature(keys, record.signature, record.key_id, record.signed ?? "");
      if (why === "missing") push(diffs, index, difference("signature", wanted, null, "the line carries no signature of the casino"));
      else if (why === "unknown key") {
        push(diffs, index, difference("signature", wanted, record.key_id, "signed with a key that is not one of the casino's public keys"));
      } else if (why === "invalid") {
        push(
          diffs,
          index,
          difference("signature", wanted, "invalid", "the line is not what the casino signed: changed afterwards, or another key"),
        );
      }
    }
    return [diffs, []];
  }

  // A browser's clock may run ahead of the server's (Python's SEEN_SLACK_S).
  const SEEN_SLACK_S = 300;

  function seconds(text) {
    if (typeof text !== "string" || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(text)) return null;
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? null : ms / 1000;
  }

  function firstSeen(receipts) {
    let first = null;
    for (const receipt of receipts) {
      const seen = seconds(receipt.seen);
      if (seen === null) return null;
      if (first === null || seen < seconds(first.seen)) first = receipt;
    }
    return first;
  }

  function seenAfter(seen, played) {
    const a = seconds(seen);
    const b = seconds(played);
    return a !== null && b !== null && a > b + SEEN_SLACK_S;
  }

  /** Whether `receipt` was shown before the round of line `index` (Python's _shown_before):
   * times are whole seconds, so a receipt of the round's second (a rotation in that second)
   * is known to be older only if a line before the round was dealt under it. */
  function shownBefore(receipt, record, index, firstLine) {
    if (record.time === null || receipt.time < record.time) return true;
    return receipt.time === record.time && (firstLine.get(receipt.commitment) ?? index) < index;
  }

  const RECEIPT_WHY = { missing: "missing", invalid: "invalid", "unknown key": "by a key that is not the casino's" };

  /** Each own round against the commitments shown before play (Python's check_receipts). */
  async function checkReceipts(records, receipts, keys) {
    const findings = [];
    const notes = [];
    const valid = [];
    for (const receipt of receipts) {
      const why = keys === null ? null : await checkSignature(keys, receipt.signature, receipt.key_id, receipt.message);
      if (why === null) {
        valid.push(receipt);
        continue;
      }
      findings.push(
        finding(
          "receipt",
          `receipt ${receipt.index} (commitment ${short(receipt.commitment)}, ${receipt.time}): its signature is ${RECEIPT_WHY[why]}: ` +
            "it is not a receipt the casino signed, and it is not used",
          [],
          receipt.commitment,
        ),
      );
    }
    if (keys === null && receipts.length) {
      notes.push(finding("unchecked", `the signatures of the ${receipts.length} receipts are not checked: no public key`));
    }
    const diffs = new Map();
    const firstLine = new Map(); // each commitment's first line (the server's order)
    records.forEach((record, index) => {
      if (!firstLine.has(record.fairness.commitment)) firstLine.set(record.fairness.commitment, index);
    });
    let beforeFirst = 0;
    const unshown = []; // lines not revealed yet, under a commitment of no receipt
    const late = [];
    for (const [index, record] of records.entries()) {
      if (!own(record)) continue;
      const mine = valid.filter((r) => record.mode === null || r.mode === record.mode);
      const shownAs = mine.filter((r) => r.commitment === record.fairness.commitment);
      if (shownAs.length) {
        const first = firstSeen(shownAs);
        if (first !== null && seenAfter(first.seen, record.time)) late.push([record, first]);
        continue;
      }
      const earlier = mine.filter((r) => shownBefore(r, record, index, firstLine));
      if (!earlier.length) {
        beforeFirst += 1;
        continue;
      }
      if (record.fairness.server_seed === null) {
        unshown.push(record.line);
        continue;
      }
      let shown = earlier[0];
      for (const r of earlier.slice(1)) if (r.time > shown.time) shown = r;
      const note = `not the commitment shown before play, in your receipt ${shown.index} of ${shown.time}: the revealed server seed does not hash to it`;
      push(diffs, index, difference("fairness.commitment", shown.commitment, record.fairness.commitment, note));
    }
    if (late.length) {
      const [record, receipt] = late[0];
      notes.push(
        finding(
          "unchecked",
          `${late.length} line(s) were dealt under a commitment this browser was first shown only after they were played ` +
            `(line ${record.line} at ${record.time}, receipt ${receipt.index} seen ${receipt.seen}): those receipts do not show what was shown before play`,
          late.map(([r]) => r.line),
        ),
      );
    }
    if (unshown.length) {
      notes.push(
        finding(
          "unchecked",
          `${unshown.length} line(s) not revealed yet were dealt under a commitment none of your receipts shows (line(s) ${ranges(unshown)}): ` +
            "not verifiable yet, they are compared with your receipts once their seed is revealed",
          unshown,
        ),
      );
    }
    if (beforeFirst) {
      notes.push(
        finding(
          "unchecked",
          `${beforeFirst} line(s) have no receipt of their mode from before they were played: their commitments are not compared with receipts`,
        ),
      );
    }
    return [diffs, findings, notes];
  }

  /** Everything across rounds: the rounds with their commitment's seed, differences by index,
   * findings and notes; with keys, the signatures; with receipts, the commitments shown. */
  async function checkExport(records, { keys = null, receipts = null } = {}) {
    const seeds = await revealedSeeds(records);
    const filled = [];
    const across = new Map();
    records.forEach((record, index) => {
      const [withSeed, diffs] = withRevealedSeed(record, seeds);
      filled.push(withSeed);
      if (diffs.length) push(across, index, ...diffs);
    });
    for (const [index, diffs] of await checkShuffles(filled)) push(across, index, ...diffs);
    const [logDiffs, logNotes] = await checkTableLogs(filled);
    for (const [index, diffs] of logDiffs) push(across, index, ...diffs);
    const [nonceDiffs, findings, notes] = checkNonces(filled);
    for (const [index, diffs] of nonceDiffs) push(across, index, ...diffs);
    notes.push(...checkBalances(filled), ...logNotes);
    notes.push(...checkSources(filled));
    const [signatureDiffs, signatureNotes] = await checkSignatures(filled, keys);
    for (const [index, diffs] of signatureDiffs) push(across, index, ...diffs);
    notes.push(...signatureNotes);
    if (receipts !== null) {
      const [receiptDiffs, receiptFindings, receiptNotes] = await checkReceipts(filled, receipts, keys);
      for (const [index, diffs] of receiptDiffs) push(across, index, ...diffs);
      findings.push(...receiptFindings);
      notes.push(...receiptNotes);
    }
    return [filled, across, findings, notes];
  }

  /** What the verifier is given beside the export: the keys (a list of base64 public keys, or
   * what parseKeys reads) and the receipts (a baccarat-receipts/1 object, whose keys serve when
   * no keys are given). */
  async function verifierInputs({ keys = null, receipts = null } = {}) {
    let trusted = null;
    let kept = null;
    if (receipts !== null) {
      const [list, held] = parseReceipts(receipts);
      kept = list;
      trusted = await publicKeys(held);
    }
    if (keys !== null) trusted = await publicKeys(parseKeys(keys));
    return { keys: trusted, receipts: kept };
  }

  /** The verdict on every round and on the export (Python's verify_history and to_json). */
  async function verifyHistory(records, inputs = {}) {
    const [filled, across, findings, notes] = await checkExport(records, inputs);
    const rounds = [];
    for (const [index, record] of filled.entries()) {
      const [diffs, coup] = await checkRound(record);
      rounds.push(roundReport(record, diffs.concat(across.get(index) || []), coup));
    }
    const count = (status) => rounds.filter((r) => r.status === status).length;
    const extra = {
      voided: count("voided"),
      voided_after_win: rounds.filter((r) => r.status === "voided" && r.reason === VOID_AFTER_WIN).length,
      findings: findings.length,
      balance_breaks: notes.filter((n) => n.kind === "balance").length,
      server_client_seeds: notes.filter((n) => n.kind === "server_client_seed").reduce((sum, n) => sum + n.lines.length, 0),
    };
    const summary = { rounds: rounds.length, verified: count("verified"), unverifiable: count("unverifiable"), differs: count("differs") };
    for (const [name, n] of Object.entries(extra)) if (n) summary[name] = n;
    const ok = summary.differs === 0 && findings.length === 0;
    // Without the casino's keys nothing can tell a doctored export consistent in itself from
    // the real one: a report in which nothing differs is then not verified (Python's Verdict).
    const signaturesChecked = (inputs.keys ?? null) !== null;
    const verdict = !ok ? "fails" : signaturesChecked ? "verified" : "signatures_not_checked";
    return { format: "baccarat-verify/1", ok, verdict, signatures_checked: signaturesChecked, summary, rounds, findings, notes };
  }

  /** An export's text verified: the report, or a HistoryFormatError for an unreadable line. */
  async function verifyText(text, given = {}) {
    const inputs = await verifierInputs(given);
    return verifyHistory(parseHistory(text), inputs);
  }

  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  // What a verdict without the casino's keys could not check (Python's NO_KEYS).
  const NO_KEYS = "no public key of the casino given: --keys, or receipts with keys";

  /** The verdict in one line, with what could not be checked (Python's headline). */
  function headline(report) {
    if (report.verdict === "verified") {
      return "VERIFIED: every round checks out, nothing is missing between them, and every line carries the casino's signature";
    }
    if (report.verdict === "signatures_not_checked") {
      return (
        `SIGNATURES NOT CHECKED (${NO_KEYS}): nothing else differs, but an export cut ` +
        "short or rewritten to be consistent in itself cannot be told from the real one"
      );
    }
    const differ = report.summary.differs;
    const what = [`${plural(differ, "round")} differ${differ === 1 ? "s" : ""}`];
    if (report.findings.length) what.push(plural(report.findings.length, "finding"));
    let text = `FAILS: ${what.join(" and ")}`;
    if (!report.signatures_checked) text += ` (and the signatures were not checked: ${NO_KEYS})`;
    return text;
  }

  /** The report's summary line, as `baccarat verify` prints it. */
  function summaryText(report) {
    const s = report.summary;
    const voided = s.voided ? `${s.voided} voided (${s.voided_after_win || 0} after a win), ` : "";
    let text = `${s.rounds} rounds: ${s.verified} verified, ${voided}${s.unverifiable} unverifiable (${UNREVEALED}), ${s.differs} differ`;
    if (s.findings) text += `; ${plural(s.findings, "finding")}`;
    if (s.balance_breaks) text += `; balance chain: ${plural(s.balance_breaks, "break")}`;
    if (s.server_client_seeds) text += `; ${s.server_client_seeds} with the server's client seed`;
    return text;
  }

  /** The report as the text of `baccarat verify` (Python's render), line by line. */
  function render(report, { quiet = false } = {}) {
    const out = [headline(report)];
    const width = Math.max(0, ...report.rounds.map((r) => r.id.length));
    for (const r of report.rounds) {
      if (quiet && r.status === "verified") continue;
      out.push(`line ${String(r.line).padStart(4)}  ${r.id.padEnd(width)}  ${verdict(r)}`);
      for (const d of r.differences) out.push(`    ${differenceText(d)}`);
    }
    for (const f of report.findings) out.push(`finding: ${f.message}`);
    for (const n of report.notes) out.push(`note: ${n.message}`);
    out.push(summaryText(report));
    return out;
  }

  const BaccaratFair = {
    SUITS,
    RANKS,
    MAX_DECKS,
    PRESETS,
    RULES,
    BET_TYPES,
    FairnessError,
    HistoryFormatError,
    FairRandom,
    toHex,
    parseServerSeed,
    clientSeedBytes,
    parseNonce,
    parseDecks,
    parseCut,
    commitment,
    firstBlock,
    canonicalOrder,
    shuffledOrder,
    deriveLightning,
    feeOf,
    cardValue,
    burnCount,
    score,
    playCoup,
    shoeLayout,
    getRules,
    settle,
    parseRecord,
    parseHistory,
    show,
    differenceText,
    checkRound,
    checkShuffles,
    checkNonces,
    checkBalances,
    checkSources,
    checkTableLogs,
    seatClientSeed,
    canonical,
    lineMessage,
    commitmentMessage,
    parseKeys,
    parseReceipts,
    publicKeys,
    checkSignatures,
    checkReceipts,
    checkExport,
    verifierInputs,
    verifyHistory,
    verifyText,
    verdict,
    headline,
    summaryText,
    render,
  };
  global.BaccaratFair = BaccaratFair;

  // -- the page ------------------------------------------------------------------------------------

  if (global.document && global.document.getElementById("verify-form")) {
    page(global.document, BaccaratFair);
  }

  function page(document, fair) {
    const LANGUAGES = {
      en: { name: "English" },
      de: { name: "Deutsch" },
      da: { name: "Dansk" },
      sv: { name: "Svenska" },
    };
    const STORE = "baccarat.lang";
    const FIELDS = ["server_seed", "client_seed", "nonce", "rules", "decks", "cut", "position"];
    const SUIT_NAMES = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
    const SUIT_SYMBOLS = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };
    // The page's strings in every language, copied from i18n/*.json into the page (it fetches
    // no catalog); the tests keep the copy equal to the catalogs.
    const STRINGS = JSON.parse(document.getElementById("verify-strings").textContent);
    let lang = "en";
    let lastReport = null;
    let lastText = null;
    // The receipts file in use (baccarat-receipts/1), from this browser or chosen.
    const RECEIPTS = "baccarat.receipts";
    let receipts = null;
    let receiptsError = null;
    let receiptsFromBrowser = false;
    // The casino's published public keys (GET api/fairness/keys, on the casino's own origin,
    // published to anyone: no session needed), fetched as the page opens: { state: "fetching"
    // | "fetched" | "missing", keys, ids }, and when missing, why (reason: "file" or "failed",
    // with a message): without keys the verdict is not green, and its headline says why.
    let published = { state: "fetching" };
    let keysFetched = Promise.resolve();

    const $ = (id) => document.getElementById(id);

    /** Say `text` to a screen reader, in the page's one live region (the same words again
     * are said again). */
    function say(text) {
      const region = $("announcer");
      region.textContent = region.textContent === text ? `${text}\u00a0` : text;
    }

    function t(key, params) {
      let text = STRINGS[lang]?.[key] ?? STRINGS.en[key] ?? key;
      if (params) text = text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
      return text;
    }

    function stored() {
      try {
        return global.localStorage.getItem(STORE);
      } catch {
        return null;
      }
    }

    function pickLanguage() {
      const saved = stored();
      if (saved && LANGUAGES[saved]) return saved;
      for (const tag of global.navigator.languages || [global.navigator.language || "en"]) {
        const base = String(tag).toLowerCase().split("-")[0];
        if (LANGUAGES[base]) return base;
        if (base === "nb" || base === "no" || base === "nn") return "da";
      }
      return "en";
    }

    function applyStatic() {
      document.documentElement.lang = lang;
      for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
      for (const el of document.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
    }

    function element(tag, attributes = {}, text = null) {
      const el = document.createElement(tag);
      for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
      if (text !== null) el.textContent = text;
      return el;
    }

    function cardElement(card, tag = "span") {
      const el = element(tag, { class: `card suit-${card[1]}`, "data-card": card });
      el.title = `${card[0] === "T" ? "10" : card[0]} of ${SUIT_NAMES[card[1]]}`;
      el.textContent = `${card[0] === "T" ? "10" : card[0]}${SUIT_SYMBOLS[card[1]]}`;
      return el;
    }

    // -- one shuffle, from its seeds (the links of the history) ---------------------------------

    function showError(message) {
      $("error").textContent = message;
      $("error").hidden = false;
      $("result").hidden = true;
    }

    function readForm() {
      const value = (id) => $(id).value;
      const rules = value("rules");
      const preset = rules ? fair.PRESETS[rules] : null;
      if (rules && !preset) throw new fair.FairnessError(`unknown rules ${JSON.stringify(rules)}`);
      const decks = fair.parseDecks(value("decks"));
      if (preset && preset.decks !== decks) throw new fair.FairnessError(`${rules} deals from ${preset.decks} decks, not ${decks}`);
      const positionText = value("position").trim() || "0";
      const position = Number(positionText);
      if (!/^[0-9]+$/.test(positionText) || position >= 52 * decks) {
        throw new fair.FairnessError(`a position is 0 to ${52 * decks - 1}, not ${JSON.stringify(positionText)}`);
      }
      fair.parseServerSeed(value("server_seed"));
      return {
        serverSeed: value("server_seed").trim().toLowerCase(),
        commitment: value("commitment_input").trim().toLowerCase(),
        clientSeed: value("client_seed"),
        nonce: fair.parseNonce(value("nonce")),
        rules,
        preset,
        decks,
        cut: fair.parseCut(value("cut"), 52 * decks),
        position,
      };
    }

    function renderHand(name, h, multipliers = new Map()) {
      $(`${name}-cards`).replaceChildren(...h.cards.map((card) => marked(cardElement(card), multipliers.get(card))));
      $(`${name}-score`).textContent = `${h.scores[0]}:${h.scores[1]}`;
    }

    /** A multiplier card of the coup, marked with its multiplier (none: the card as it is). */
    function marked(el, multiplier) {
      if (!multiplier) return el;
      el.classList.add("lightning");
      el.dataset.multiplier = String(multiplier);
      el.append(element("b", { class: "times" }, `\u00d7${multiplier}`));
      return el;
    }

    /** A multiplier game's multiplier cards of the coup at the position, re-derived. */
    async function showLightning(input) {
      const terms = input.rules ? fair.RULES[input.rules].multipliers : null;
      $("lightning-box").hidden = !terms;
      if (!terms) return [];
      const cards = await fair.deriveLightning(input.serverSeed, input.clientSeed, input.nonce, terms, input.position);
      $("lightning").replaceChildren(...cards.map((one) => marked(cardElement(one.card, "li"), one.multiplier)));
      return cards;
    }

    function permalink(input) {
      const params = new URLSearchParams();
      params.set("server_seed", input.serverSeed);
      if (input.commitment) params.set("commitment", input.commitment);
      params.set("client_seed", input.clientSeed);
      params.set("nonce", input.nonce);
      if (input.rules) params.set("rules", input.rules);
      params.set("decks", String(input.decks));
      if (input.cut !== null) params.set("cut", String(input.cut));
      params.set("position", String(input.position));
      return `?${params}`;
    }

    async function verify() {
      $("error").hidden = true;
      let input;
      try {
        input = readForm();
      } catch (error) {
        showError(error.message);
        return;
      }
      const [commit, order] = await Promise.all([
        fair.commitment(input.serverSeed),
        fair.shuffledOrder(input.serverSeed, input.clientSeed, input.nonce, input.decks, input.cut),
      ]);
      $("commitment").textContent = commit;
      const check = $("commitment-check");
      if (!input.commitment) {
        check.textContent = t("verify.compare");
        check.className = "check";
      } else if (input.commitment === commit) {
        check.textContent = `\u2713 ${t("verify.matches")}`;
        check.className = "check ok";
      } else {
        check.textContent = `\u2717 ${t("verify.no_match", { commitment: input.commitment })}`;
        check.className = "check bad";
      }
      const layout = fair.shoeLayout(order, input.preset);
      const notes = [];
      if (layout.burned) notes.push(t("verify.burned", { card: order[0], last: layout.burned - 1 }));
      if (layout.cutCard !== null) notes.push(t("verify.cut_card", { n: layout.cutCard }));
      if (input.position < layout.burned) notes.push(t("verify.in_burn"));
      if (layout.cutCard !== null && input.position >= layout.cutCard) notes.push(t("verify.after_cut"));
      $("layout").textContent = notes.join(" ");
      let coup;
      try {
        coup = fair.playCoup(order.slice(input.position));
      } catch (error) {
        showError(`position ${input.position}: ${error.message}`);
        return;
      }
      $("coup-position").textContent = String(input.position);
      const lightning = await showLightning(input);
      const multipliers = new Map(lightning.map((one) => [one.card, one.multiplier]));
      renderHand("player", coup.player, multipliers);
      renderHand("banker", coup.banker, multipliers);
      $("coup-winner").textContent = coup.winner === "tie" ? t("verify.tie") : t("result.wins", { winner: t(`spot.${coup.winner}`) });
      $("coup-winner").dataset.winner = coup.winner;
      const items = order.map((card, index) => {
        const item = cardElement(card, "li");
        item.value = index;
        item.dataset.index = String(index);
        if (index < layout.burned) item.classList.add("burned");
        if (index >= input.position && index < input.position + coup.cardsUsed) item.classList.add("in-coup");
        if (layout.cutCard !== null && index >= layout.cutCard) item.classList.add("after-cut");
        return item;
      });
      $("order").replaceChildren(...items);
      $("order-count").textContent = String(order.length);
      const link = permalink(input);
      $("permalink").href = link;
      if (global.location.protocol !== "file:") global.history.replaceState(null, "", link);
      $("result").hidden = false;
      document.body.dataset.verified = "true";
    }

    function fillFromQuery() {
      const params = new URLSearchParams(global.location.search);
      for (const field of FIELDS) if (params.has(field)) $(field).value = params.get(field);
      if (params.has("commitment")) $("commitment_input").value = params.get("commitment");
      return params.has("server_seed");
    }

    // -- a whole export (the checks of `baccarat verify`) ----------------------------------------

    function exportError(message) {
      $("export-error").textContent = t("verify.export_unreadable", { message });
      $("export-error").hidden = false;
      $("export-result").hidden = true;
      document.body.dataset.exportVerified = "error";
    }

    function statusText(r) {
      if (r.status === "voided") return t(`verify.void_${r.reason.replaceAll(" ", "_")}`);
      return t(`verify.status_${r.status}`);
    }

    /** The export's verdict in words, with its mark and its class. */
    function verdictOf(report) {
      if (report.verdict === "verified") return { text: t("verify.export_ok"), mark: "\u2713", className: "check ok" };
      if (report.verdict === "signatures_not_checked") {
        return { text: t("verify.export_unsigned", { why: keysWhy() }), mark: "\u26a0", className: "check warn" };
      }
      const unsigned = report.signatures_checked ? "" : ` ${t("verify.export_bad_unsigned", { why: keysWhy() })}`;
      return { text: `${t("verify.export_bad")}${unsigned}`, mark: "\u2717", className: "check bad" };
    }

    function renderExport(report) {
      const ok = report.ok;
      const verdict = verdictOf(report);
      $("export-verdict").textContent = `${verdict.mark} ${verdict.text}`;
      $("export-verdict").className = verdict.className;
      const s = report.summary;
      $("export-summary").textContent = t("verify.export_counts", {
        rounds: s.rounds,
        verified: s.verified,
        voided: s.voided || 0,
        after_win: s.voided_after_win || 0,
        unverifiable: s.unverifiable,
        differs: s.differs,
        findings: s.findings || 0,
        breaks: s.balance_breaks || 0,
      });
      const list = (id, items, className) => {
        $(id).replaceChildren(
          ...items.map((item) => {
            const li = element("li", { class: className, "data-kind": item.kind });
            li.append(element("strong", {}, `${t(`verify.kind_${item.kind}`)}: `), document.createTextNode(item.message));
            return li;
          }),
        );
        $(`${id}-title`).hidden = items.length === 0;
      };
      list("export-findings", report.findings, "finding check bad");
      list("export-notes", report.notes, "note");
      const rows = report.rounds.map((r) => {
        const row = element("tr", { "data-line": String(r.line), "data-status": r.status, "data-round": r.id });
        row.append(
          element("td", {}, String(r.line)),
          element("td", {}, r.id),
          element("td", { class: r.status === "differs" ? "check bad" : "" }, statusText(r)),
        );
        const details = element("td");
        for (const d of r.differences)
          details.append(element("div", { class: "difference", "data-field": d.field }, fair.differenceText(d)));
        row.append(details);
        return row;
      });
      $("export-rounds").replaceChildren(...rows);
      $("export-text").textContent = fair.render(report).join("\n");
      $("export-error").hidden = true;
      $("export-result").hidden = false;
      document.body.dataset.exportVerified = "true";
      document.body.dataset.exportOk = String(ok);
      document.body.dataset.exportVerdict = report.verdict;
    }

    async function verifyExport(text) {
      lastText = text;
      await keysFetched;
      let report;
      try {
        report = await fair.verifyText(text, verifierGiven());
      } catch (error) {
        exportError(error.message);
        return;
      }
      lastReport = report;
      renderExport(report);
      // The verdict and the counts, not the report: that is read where it is.
      say(`${verdictOf(report).text} ${$("export-summary").textContent}`);
    }

    // -- the casino's public keys: every line's signature ---------------------------------------

    const receiptsHaveKeys = () => Boolean(receipts && (receipts.signing_keys || []).length);

    /** What the verifier is given: the receipts, and the keys that came with them (the keys
     * you were given before play) or else the ones the casino publishes now. */
    function verifierGiven() {
      if (receiptsHaveKeys()) return { receipts };
      return { receipts, keys: published.state === "fetched" ? published.keys : null };
    }

    /** The casino's published keys, or why there are none: a page opened from a file fetches
     * nothing; on the casino's origin anyone gets them, logged in or not (no cookie is sent). */
    async function fetchKeys() {
      if (global.location.protocol === "file:") return { state: "missing", reason: "file" };
      try {
        const answer = await global.fetch(new URL("api/fairness/keys", global.location.href), {
          credentials: "omit",
          cache: "no-cache",
          headers: { Accept: "application/json" },
        });
        if (!answer.ok) return { state: "missing", reason: "failed", message: `HTTP ${answer.status}` };
        const keys = fair.parseKeys(await answer.json());
        if (!keys.length) return { state: "missing", reason: "failed", message: "no signing_keys" };
        return { state: "fetched", keys, ids: (await fair.publicKeys(keys)).ids };
      } catch (error) {
        return { state: "missing", reason: "failed", message: error.message };
      }
    }

    /** Why the signatures were not checked, in a few words. */
    const keysWhy = () => t(`verify.keys_why_${published.reason || "failed"}`, { message: published.message || "" });

    function keysStatus() {
      const status = $("keys-status");
      status.className = "note";
      if (receiptsHaveKeys()) {
        status.textContent = t("verify.keys_receipts");
      } else if (published.state === "fetched") {
        status.textContent = t("verify.keys_fetched", { ids: published.ids.join(", ") });
      } else if (published.state === "fetching") {
        status.textContent = t("verify.keys_fetching");
      } else {
        status.textContent = t("verify.keys_missing", { why: keysWhy() });
        status.className = "note warn";
      }
      document.body.dataset.keys = published.state;
    }

    // -- the receipts: the commitments shown before play, signed by the casino ------------------

    function receiptsStatus() {
      const status = $("receipts-status");
      if (receiptsError) {
        status.textContent = t("verify.receipts_unreadable", { message: receiptsError });
        status.className = "note check bad";
        return;
      }
      status.className = "note";
      if (!receipts) {
        status.textContent = t("verify.receipts_none");
        return;
      }
      const counts = { n: receipts.receipts.length, keys: (receipts.signing_keys || []).length };
      status.textContent = t(receiptsFromBrowser ? "verify.receipts_browser" : "verify.receipts_loaded", counts);
    }

    function useReceipts(data, fromBrowser) {
      try {
        fair.parseReceipts(data);
      } catch (error) {
        receiptsError = error.message;
        receiptsStatus();
        return;
      }
      receipts = data;
      receiptsError = null;
      receiptsFromBrowser = fromBrowser;
      receiptsStatus();
      keysStatus();
      document.body.dataset.receipts = String(data.receipts.length);
      if (lastText !== null) verifyExport(lastText);
    }

    /** The receipts the casino's pages kept in this browser (none when opened from a file). */
    function browserReceipts() {
      let data = null;
      try {
        data = JSON.parse(global.localStorage.getItem(RECEIPTS) || "null");
      } catch {
        return;
      }
      if (!data || !Array.isArray(data.receipts) || !data.receipts.length) return;
      const save = $("receipts-save");
      save.href = URL.createObjectURL(new Blob([JSON.stringify(data, null, 1)], { type: "application/json" }));
      save.hidden = false;
      useReceipts(data, true);
    }

    function readReceipts(file) {
      file
        .text()
        .then((text) => {
          let data;
          try {
            data = JSON.parse(text);
          } catch (error) {
            throw new fair.FairnessError(`not JSON (${error.message})`);
          }
          useReceipts(data, false);
        })
        .catch((error) => {
          receiptsError = error.message;
          receiptsStatus();
        });
    }

    function readFile(file) {
      document.body.dataset.exportVerified = "working";
      file
        .text()
        .then(verifyExport)
        .catch((error) => exportError(error.message));
    }

    // -- the page in the site's language ------------------------------------------------------------

    function presets() {
      const select = $("rules");
      const chosen = select.value;
      for (const group of [...select.querySelectorAll("optgroup")]) group.remove();
      // Grouped by how they shuffle, so that each name and its decks fit the menu.
      for (const shuffle of ["fresh", "cut-shoe"]) {
        const group = element("optgroup", { label: t(`verify.shuffle_${shuffle}`) });
        for (const [name, preset] of Object.entries(fair.PRESETS)) {
          if (preset.shuffle !== shuffle) continue;
          const label = t(preset.decks === 1 ? "verify.preset_one" : "verify.preset", { name, decks: preset.decks });
          group.append(element("option", { value: name }, label));
        }
        select.append(group);
      }
      select.value = chosen;
    }

    function speak(code, { remember = false } = {}) {
      lang = LANGUAGES[code] ? code : "en";
      if (remember) {
        try {
          global.localStorage.setItem(STORE, lang);
        } catch {
          // A page opened from a file may have no storage: the choice lasts this visit.
        }
      }
      applyStatic();
      presets();
    }

    function init() {
      const menu = $("lang");
      for (const [code, info] of Object.entries(LANGUAGES)) {
        const option = element("option", { value: code, lang: code }, info.name);
        menu.append(option);
      }
      speak(pickLanguage());
      menu.value = lang;
      menu.addEventListener("change", () => {
        speak(menu.value, { remember: true });
        if ($("result").hidden === false) verify().catch((error) => showError(error.message));
        if (lastReport) renderExport(lastReport);
        receiptsStatus();
        keysStatus();
      });
      const select = $("rules");
      select.addEventListener("change", () => {
        if (fair.PRESETS[select.value]) $("decks").value = String(fair.PRESETS[select.value].decks);
      });
      $("verify-form").addEventListener("submit", (event) => {
        event.preventDefault();
        verify()
          .then(() => {
            // The commitment's check and the coup's winner, not the shoe.
            if (!$("result").hidden) say(`${$("commitment-check").textContent} ${$("coup-winner").textContent}`);
          })
          .catch((error) => showError(error.message));
      });
      $("export-file").addEventListener("change", () => {
        const [file] = $("export-file").files;
        if (file) readFile(file);
      });
      $("receipts-file").addEventListener("change", () => {
        const [file] = $("receipts-file").files;
        if (file) readReceipts(file);
      });
      receiptsStatus();
      keysStatus();
      keysFetched = fetchKeys().then((found) => {
        published = found;
        keysStatus();
      });
      browserReceipts();
      const drop = $("export-section");
      drop.addEventListener("dragover", (event) => event.preventDefault());
      drop.addEventListener("drop", (event) => {
        event.preventDefault();
        const [file] = event.dataTransfer.files;
        if (file) readFile(file);
      });
      if (fillFromQuery()) verify().catch((error) => showError(error.message));
      document.body.dataset.ready = "true";
    }

    try {
      init();
    } catch (error) {
      showError(error.message);
    }
  }
})(globalThis);
