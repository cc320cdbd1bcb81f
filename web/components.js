// The small component set both pages are built from. Text always goes in as text
// (never as HTML): what a device, an agent or a push carries cannot become markup.

/** An element: `h("td", {class: "x", dataset: {label: "Y"}}, "text", child)`. */
export function h(tag, attributes = {}, ...children) {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) {
        if (value === undefined || value === null || value === false) continue;
        if (name === "dataset") Object.assign(element.dataset, value);
        else if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
        else if (value === true) element.setAttribute(name, "");
        else element.setAttribute(name, String(value));
    }
    for (const child of children.flat()) {
        if (child === undefined || child === null || child === false) continue;
        element.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return element;
}

const statusWords = { connected: "connected", recent: "recent", not_connected: "not connected" };

/** The connection light: its colour, and its word for those who do not see colour. */
export function light(status) {
    const word = statusWords[status] ?? "not connected";
    return h("span", { class: `light ${statusWords[status] ? status : "not_connected"}`, role: "img", "aria-label": word, title: word });
}

/** "12 s ago", "3 min ago", "2 h ago", "5 d ago" from an RFC 3339 time; "" for none. */
export function ago(time, now = Date.now()) {
    if (!time) return "";
    const seconds = Math.max(0, Math.round((now - Date.parse(time)) / 1000));
    if (Number.isNaN(seconds)) return "";
    if (seconds < 90) return `${seconds} s ago`;
    if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min ago`;
    if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h ago`;
    return `${Math.round(seconds / 86400)} d ago`;
}

/** "in 4 min" for a time ahead, else as `ago`. */
export function fromNow(time, now = Date.now()) {
    const seconds = Math.round((Date.parse(time) - now) / 1000);
    if (Number.isNaN(seconds)) return "";
    if (seconds <= 0) return ago(time, now);
    if (seconds < 90) return `in ${seconds} s`;
    if (seconds < 90 * 60) return `in ${Math.round(seconds / 60)} min`;
    return `in ${Math.round(seconds / 3600)} h`;
}

/** A time element showing `text`, with the exact time on hover and for readers. */
export function time(iso, text) {
    return iso ? h("time", { datetime: iso, title: iso }, text) : h("span", { class: "muted" }, "never");
}

/** A table: `columns` are labels; each row is an array of cells (node or text), or
 *  `{cells, class, key}`. On a narrow screen each cell shows its column's label. */
export function table(columns, rows, { caption, empty = "Nothing yet." } = {}) {
    if (rows.length === 0) return h("p", { class: "muted" }, empty);
    return h("div", { class: "scroll" },
        h("table", { class: "stack" },
            caption ? h("caption", { class: "muted" }, caption) : null,
            h("thead", {}, h("tr", {}, columns.map((column) => h("th", { scope: "col" }, column)))),
            h("tbody", {}, rows.map((row) => {
                const cells = Array.isArray(row) ? row : row.cells;
                return h("tr", { class: row.class, dataset: row.key ? { key: row.key } : undefined },
                    cells.map((cell, index) => h("td", { dataset: { label: columns[index] } }, cell)));
            }))));
}

/** A chip: a word with the colour of its kind. */
export function chip(text, kind = "") {
    return h("span", { class: `chip ${kind}` }, text);
}

/** A button whose first press arms it and whose second, within 4 s, acts: no
 *  dialog, and a slip of the keyboard removes nothing. */
export function confirmButton(label, armedLabel, action, attributes = {}) {
    let timer;
    const button = h("button", { type: "button", class: "danger", ...attributes }, label);
    button.addEventListener("click", () => {
        if (!button.classList.contains("armed")) {
            button.classList.add("armed");
            button.textContent = armedLabel;
            timer = setTimeout(() => { button.classList.remove("armed"); button.textContent = label; }, 4000);
            return;
        }
        clearTimeout(timer);
        button.disabled = true;
        action();
    });
    return button;
}

/**
 * Replaces what `container` shows with `build()`, only when `data` changed since the
 * last time: a page that refreshes every few seconds keeps the keyboard's place. The
 * element that had the focus (found again by its `data-focus` name) gets it back.
 */
export function render(container, data, build) {
    const text = JSON.stringify(data);
    if (container.dataset.rendered === text) return;
    const focused = container.contains(document.activeElement) ? document.activeElement?.dataset?.focus : undefined;
    container.replaceChildren(...[build()].flat(Infinity).filter((child) => child !== null && child !== undefined));
    container.dataset.rendered = text;
    if (focused) container.querySelector(`[data-focus="${CSS.escape(focused)}"]`)?.focus();
}

/**
 * Calls the gateway: `{ok, status, body}`, and `message` in words when it failed (the
 * documented error JSON's message, or why nothing came back).
 */
export async function callJSON(url, { method = "GET", secret, body } = {}) {
    const headers = { Accept: "application/json" };
    if (secret) headers.Authorization = `Bearer ${secret}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response;
    try {
        response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store" });
    } catch (error) {
        return { ok: false, status: 0, message: `The gateway did not answer (${error.message}).` };
    }
    let json = null;
    try { json = await response.json(); } catch { /* an empty or non-JSON body */ }
    if (response.ok) return { ok: true, status: response.status, body: json };
    const error = json?.error;
    const message = error?.message
        ? `${error.message}${error.field ? ` (${error.field})` : ""}`
        : `The gateway answered ${response.status}.`;
    return { ok: false, status: response.status, code: error?.status, message, body: json };
}

/** Runs `task` now and every `seconds` while the page is visible. */
export function every(seconds, task) {
    let timer;
    const tick = async () => {
        clearTimeout(timer);
        if (document.visibilityState !== "hidden") await task();
        timer = setTimeout(tick, seconds * 1000);
    };
    document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") tick(); });
    tick();
    return { now: tick };
}
