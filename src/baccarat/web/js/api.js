// The server's JSON API: cookie session + CSRF double-submit, Bearer as a fallback,
// errors as ApiError with the server's stable code.

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message || code);
    this.status = status;
    this.code = code;
    this.details = details || {};
  }
}

let bearer = null;
let csrfFromBody = null;
let sessionEnded = () => {};
const refusals = new Set();
const answers = new Set();

/** Call fn(error) on every refusal the server answers (e.g. a reality check due). */
export function onRefusal(fn) {
  refusals.add(fn);
}

/** Call fn(data) on every answer of the server that is not a refusal. */
export function onAnswer(fn) {
  answers.add(fn);
}

/** Call fn when the server says the session has ended (401 not_authenticated). */
export function onSessionEnded(fn) {
  sessionEnded = fn;
}

export function setSession(body) {
  bearer = body && body.token ? body.token : null;
  csrfFromBody = body && (body.csrf_token || body.csrf) ? body.csrf_token || body.csrf : null;
}

function csrfToken() {
  for (const part of document.cookie.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (/csrf|xsrf/i.test(name)) return decodeURIComponent(rest.join("="));
  }
  return csrfFromBody;
}

export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// The requests on their way, and whether the session is being ended (`endSession`).
const inFlight = new Set();
let ending = false;

export async function request(method, path, { body, headers = {}, query, ends = false } = {}) {
  if (ending && !ends) throw new ApiError(0, "session_ending", "the session is ending");
  let url = path;
  if (query) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== null && value !== undefined && value !== "") params.set(key, value);
    }
    const text = params.toString();
    if (text) url += (url.includes("?") ? "&" : "?") + text;
  }
  const all = { Accept: "application/json", ...headers };
  if (body !== undefined) all["Content-Type"] = "application/json";
  if (method !== "GET") {
    const token = csrfToken();
    if (token) all["X-CSRF-Token"] = token;
  }
  if (bearer) all.Authorization = `Bearer ${bearer}`;
  const control = new AbortController();
  let response;
  let text;
  inFlight.add(control);
  try {
    response = await fetch(url, {
      method,
      headers: all,
      credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: control.signal,
    });
    text = await response.text();
  } catch (error) {
    if (control.signal.aborted) throw new ApiError(0, "session_ending", "the session ended");
    reachable(false);
    throw new ApiError(0, "network_error", String(error));
  } finally {
    inFlight.delete(control);
  }
  reachable(true);
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) {
    const err = data && data.error ? data.error : {};
    let code = err.code;
    if (!code && data && data.detail) code = response.status === 422 ? "invalid_request" : null;
    if (!code) code = response.status === 401 ? "not_authenticated" : `http_${response.status}`;
    if (code === "not_authenticated") sessionEnded();
    const error = new ApiError(response.status, code, err.message || "", err.details);
    for (const fn of refusals) fn(error);
    throw error;
  }
  for (const fn of answers) fn(data);
  return data;
}

/**
 * End the session (`DELETE path`): what the page was still waiting for is cancelled, and
 * nothing else is sent until the server has answered, so that no request of the session
 * arrives after it ended (answered 401: an error in the console of a player who only
 * logged out).
 */
export async function endSession(path) {
  ending = true;
  for (const control of inFlight) control.abort();
  try {
    return await request("DELETE", path, { ends: true });
  } finally {
    ending = false;
  }
}

export const get = (path, query) => request("GET", path, { query });
export const post = (path, body, headers) => request("POST", path, { body, headers });

// Reachability: every answer says the server is reachable, every failed fetch that it is not.
let reachable = () => {};
export function onReachable(fn) {
  reachable = fn;
}

const RETRY_MS = [500, 1000, 2000, 4000];

/**
 * A money-moving POST under one Idempotency-Key. A lost answer (no connection, or a gateway
 * error) is asked again with the same key, with a backoff, until the server answers: it
 * replays the first answer, so the request is done once. `retrying()` says it is waiting;
 * it returns false to give up (the view is gone).
 */
export async function postOnce(path, body = undefined, { retrying = () => true } = {}) {
  const headers = { "Idempotency-Key": newKey() };
  for (let attempt = 0; ; attempt++) {
    try {
      return await request("POST", path, { body, headers });
    } catch (error) {
      const lost = error.code === "network_error" || [502, 503, 504].includes(error.status);
      if (!lost || retrying() === false) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
  }
}
