// The provably fair derivation of docs/fairness.md, with WebCrypto (browsers, Node 20+).
//
// server seed: 32 bytes as 64 hex characters; commitment = sha256(seed bytes) in hex.
// bytes: HMAC-SHA256(key = seed bytes, msg = `${clientSeed}:${nonce}:${counter}`), counter 0, 1, ...
// uniform in [0, n): next 4 bytes big-endian x; if x >= 2**32 - (2**32 % n) take the next 4,
// else x % n. Fisher-Yates from the top index down over the canonical order (deck by deck,
// suits c d h s, ranks A 2 3 4 5 6 7 8 9 T J Q K); a cut at k gives L[k:] + L[:k].
// The Python reference is baccarat.fairness.derive; tests/data/fairness_vectors.json binds both.

export const SUITS = ["c", "d", "h", "s"];
export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
export const MAX_DECKS = 8;
const SPACE = 2 ** 32;

// The rule set presets of baccarat.core.rules that matter to a shoe (checked by the tests).
export const PRESETS = {
  "online-6deck-tie9": { decks: 6, shuffle: "fresh", burn: false, cutCard: null },
  mini: { decks: 8, shuffle: "cut-shoe", burn: true, cutCard: 364 },
  "single-deck": { decks: 1, shuffle: "fresh", burn: false, cutCard: null },
  "classic-6deck": { decks: 6, shuffle: "fresh", burn: false, cutCard: null },
  "online-8deck-tie8": { decks: 8, shuffle: "fresh", burn: false, cutCard: null },
  "classic-8deck": { decks: 8, shuffle: "cut-shoe", burn: true, cutCard: 364 },
  "ez-8deck": { decks: 8, shuffle: "fresh", burn: false, cutCard: null },
  "no-commission-8deck": { decks: 8, shuffle: "fresh", burn: false, cutCard: null },
};

export class FairnessError extends Error {
  constructor(message) {
    super(message);
    this.name = "FairnessError";
  }
}

function subtle() {
  const crypto = globalThis.crypto;
  if (!crypto || !crypto.subtle) {
    throw new FairnessError("this browser offers no WebCrypto here: open the page over https or from localhost");
  }
  return crypto.subtle;
}

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The seed's 32 bytes; blanks around it and upper case are forgiven. */
export function parseServerSeed(text) {
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

/** The client seed as UTF-8; text with unpaired surrogates is refused (Python refuses it). */
export function clientSeedBytes(clientSeed) {
  if (typeof clientSeed !== "string") throw new FairnessError("a client seed is a text");
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(clientSeed)) {
    throw new FairnessError("a client seed must be valid Unicode text (UTF-8)");
  }
  return new TextEncoder().encode(clientSeed);
}

/** The nonce in canonical decimal (as Python prints an int): any size, no leading zeros. */
export function parseNonce(value) {
  const text = String(value ?? "").trim();
  if (!/^[0-9]+$/.test(text)) {
    throw new FairnessError(`a nonce is a whole number from 0, not ${JSON.stringify(text)}`);
  }
  return BigInt(text).toString();
}

export function parseDecks(value) {
  const text = String(value ?? "").trim();
  const decks = Number(text);
  if (!/^[0-9]+$/.test(text) || decks < 1 || decks > MAX_DECKS) {
    throw new FairnessError(`a shoe holds 1 to ${MAX_DECKS} decks, not ${JSON.stringify(text)}`);
  }
  return decks;
}

/** A cut position 0 .. size-1, or null when empty. */
export function parseCut(value, size) {
  const text = String(value ?? "").trim();
  if (text === "" || text === "null") return null;
  const cut = Number(text);
  if (!/^[0-9]+$/.test(text) || cut >= size) {
    throw new FairnessError(`a cut is a position from 0 to ${size - 1}, not ${JSON.stringify(text)}`);
  }
  return cut;
}

/** sha256 of the seed's bytes, as hex: the commitment shown before play. */
export async function commitment(serverSeed) {
  const digest = await subtle().digest("SHA-256", parseServerSeed(serverSeed));
  return toHex(new Uint8Array(digest));
}

async function hmacKey(serverSeed) {
  return subtle().importKey("raw", parseServerSeed(serverSeed), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** Uniform integers from the HMAC byte stream, by rejection (no modulo bias). */
export class FairRandom {
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
export async function firstBlock(serverSeed, clientSeed, nonce) {
  const random = await FairRandom.create(serverSeed, clientSeed, nonce);
  return random.block(0);
}

/** The canonical order of a shoe: deck by deck, suits c d h s, ranks A..K. */
export function canonicalOrder(decks) {
  const deck = SUITS.flatMap((suit) => RANKS.map((rank) => rank + suit));
  return Array.from({ length: decks }, () => deck).flat();
}

/** The shoe's dealing order (card strings such as "Td"), after the player's cut if any. */
export async function shuffledOrder(serverSeed, clientSeed, nonce, decks, cut = null) {
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

/** Baccarat value of a card: ace 1, two to nine face value, ten and pictures 0. */
export function cardValue(card) {
  const rank = RANKS.indexOf(card[0]) + 1;
  if (rank < 1) throw new FairnessError(`bad card ${JSON.stringify(card)}`);
  return rank < 10 ? rank : 0;
}

/** Cards burned under the turned first card: its rank value, tens and pictures count 10. */
export function burnCount(card) {
  return Math.min(RANKS.indexOf(card[0]) + 1, 10);
}

/** A hand's score: the sum of its cards' values, modulo 10 (the one scorer of the pages). */
export function score(cards) {
  return cards.reduce((sum, card) => sum + cardValue(card), 0) % 10;
}

function bankerDraws(banker, third) {
  if (third === null) return banker <= 5; // the player stood: banker draws on 0-5
  if (banker <= 2) return true;
  if (banker === 3) return third !== 8;
  if (banker === 4) return third >= 2 && third <= 7;
  if (banker === 5) return third >= 4 && third <= 7;
  if (banker === 6) return third >= 6 && third <= 7;
  return false; // banker 7 stands
}

/** The coup dealt from the top of `cards`: player, banker, player, banker, then the tableau. */
export function playCoup(cards) {
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
    if (score(player) <= 5) {
      const card = draw();
      player.push(card);
      third = cardValue(card);
    }
    if (bankerDraws(score(banker), third)) banker.push(draw());
  }
  const hand = (hand) => ({ cards: hand, scores: [score(hand.slice(0, 2)), score(hand)] });
  const p = score(player);
  const b = score(banker);
  return {
    player: hand(player),
    banker: hand(banker),
    winner: p > b ? "player" : b > p ? "banker" : "tie",
    natural,
    cardsUsed: player.length + banker.length,
  };
}

/** Burn and cut card of a preset's shoe, given its order after the cut. */
export function shoeLayout(order, preset) {
  if (!preset || preset.shuffle !== "cut-shoe") return { burned: 0, cutCard: null };
  const burned = preset.burn ? 1 + burnCount(order[0]) : 0;
  return { burned, cutCard: preset.cutCard };
}
