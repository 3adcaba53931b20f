// The jurisdiction profile the session plays under, as the server tells it (GET /api/session,
// docs/jurisdictions.md): which features are on, the least time between two rounds, what the
// felt always shows. The page keeps no copy of its own: before the server has said, or if it
// could not be asked, every feature a profile may switch off is off.

import * as store from "./state.js";

const profile = () => store.state.profile;

/** Whether the profile lets the page offer a feature (`fast_reveal`, `favourites`, ...). */
export const allows = (feature) => Boolean(profile() && profile()[feature]);

/** A number of the profile (`min_cycle_ms`, `autoplay_rounds`, ...); 0 if unknown. */
export const amount = (key) => (profile() && Number(profile()[key])) || 0;

/** Whether the felt must always show `item` (`net_position`, `session_time`). */
export const shows = (item) => Boolean(profile() && profile().screen.includes(item));

/** The profile's name (GB, MT, ON, default), or "" before the server said. */
export const name = () => (profile() ? profile().name : "");

/**
 * Whether a round may be celebrated (its win sound, the chips paid in): always when it
 * returns more than its stake, and at or below it only where the profile allows.
 */
export const celebrates = (returned, staked) => returned > staked || allows("celebrate_at_most_stake");
