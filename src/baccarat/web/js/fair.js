// The provably fair derivation and the verifier (docs/fairness.md), as an ES module: the
// pages score cards with it and link to the verifier with its presets; Node runs the shared
// vectors through it.
//
// The code is verify-page.js, a classic script, so that the verifier page also runs saved to
// a file (browsers load no ES module from file://): importing it defines
// globalThis.BaccaratFair, which this module exports as its default, whole: the names are
// listed once, there (`import fair from "./fair.js"; fair.score(...)`).

import "./verify-page.js";

export default globalThis.BaccaratFair;
