// The provably fair derivation and the verifier (docs/fairness.md), as an ES module: the
// pages score cards with it and link to the verifier with its presets; Node runs the shared
// vectors through it.
//
// The code is verify-page.js, a classic script, so that the verifier page also runs saved to
// a file (browsers load no ES module from file://): importing it defines
// globalThis.BaccaratFair, which this module exports name by name.

import "./verify-page.js";

const fair = globalThis.BaccaratFair;

export const {
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
} = fair;
