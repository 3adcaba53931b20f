// The back office's requests: the staff cookie, and on every change its CSRF token.

function csrf() {
  const found = document.cookie.match(/(?:^|; )baccarat_staff_csrf=([^;]*)/);
  return found ? decodeURIComponent(found[1]) : "";
}

export class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    super(error.message || `HTTP ${status}`);
    this.status = status;
    this.code = error.code || "http_error";
    this.details = error.details || {};
  }
}

export async function request(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") headers["X-CSRF-Token"] = csrf();
  const response = await fetch(`/admin/api/${path}`, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return null;
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

export const get = (path) => request("GET", path);
export const post = (path, body) => request("POST", path, body);
export const put = (path, body) => request("PUT", path, body);

/** The address of a report's table as a CSV download. */
export const csvHref = (path) => `/admin/api/${path}${path.includes("?") ? "&" : "?"}format=csv`;
