// Tiny DOM helpers: h() builds elements, no framework.

/**
 * h("button", {class: "x", onclick: f, "aria-label": "..."}, "text", child)
 * Attributes: class, text, html-free children (strings become text nodes),
 * on* functions become listeners, dataset via data-*, booleans set/unset.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on") && typeof value === "function") {
        el.addEventListener(key.slice(2), value);
      } else if (key === "class") {
        el.className = value;
      } else if (key === "text") {
        el.textContent = value;
      } else if (value === true) {
        el.setAttribute(key, "");
      } else {
        el.setAttribute(key, String(value));
      }
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** A web address a link may lead to (http or https), else null. */
export function webAddress(text) {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/** Replace el's children, skipping null/false like h() does. */
export function fill(el, ...children) {
  clear(el);
  append(el, children);
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** Load the stylesheet css/NAME.css once (the views that need their own rules load them). */
export function loadStyles(name) {
  if (document.querySelector(`link[data-css="${name}"]`)) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = `css/${name}.css`;
  link.dataset.css = name;
  document.head.append(link);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/**
 * Say `text` to a screen reader: the page's one live region for the views (#announcer in
 * index.html, visually hidden). The same words again are said again.
 */
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region || !text) return;
  region.textContent = region.textContent === text ? `${text}\u00a0` : text;
}

/**
 * A view was put in `root`: the document's title names it (its heading's words, else
 * `fallback`, then `site`), and with `focus` the focus goes to that heading (focusable by
 * script alone), or to `root` without one, so that a screen reader says where the player
 * is now and the keyboard goes on from there.
 */
export function enterView(root, site, { focus = true, fallback = "" } = {}) {
  const heading = root.querySelector("h1");
  const name = (heading && heading.textContent.trim()) || fallback;
  document.title = name ? `${name} \u00b7 ${site}` : site;
  if (!focus) return;
  if (heading) heading.tabIndex = -1;
  (heading || root).focus();
}
