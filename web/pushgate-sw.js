// Pushgate's service worker for web apps: shows each Web Push as Pushgate sends it
// and tells the gateway what became of it (POST /receipts, issue 75): "delivered"
// as it is shown, "opened" as the person clicks it.
//
// A web app imports it into its own service worker, served from its own origin:
//
//     importScripts("https://push.example.com/pushgate-sw.js");
//
// and, once it has registered the browser's subscription, tells it where to confirm
// (the gateway must list the app's origin in PUSHGATE_CORS_ORIGINS):
//
//     registration.active.postMessage({ pushgate: { gateway, secret, installationID } });
//
// The worker keeps that in IndexedDB (it is stopped and started again between pushes)
// and answers { pushgate: "configured" } to the message's sender. Without it, pushes
// are still shown; nothing is confirmed.
//
// What it reads is the plaintext the gateway encrypts for a browser: {title, body,
// tag?, data, actions?, require_interaction?, silent?}, or Declarative Web Push's
// {web_push: 8030, notification: {title, body, navigate, app_badge, tag}}. The data's
// `event_id` names the push in a receipt; `web_url` is the page a click opens. An
// approval's Allow or Deny, or the words typed in a reply's text field (Chromium's
// `type: "text"` action, issue 83), go to the app's page, which signs them: only the
// app holds the key that signs a decision (issue 73). A page of the app that is open
// gets the message { pushgate: { event_id, action, reply? } }; without one, the app
// opens with `#pushgate-event=<id>&pushgate-action=<action>&pushgate-reply=<words>`.
// A browser shows two buttons: what needs the app (issue 84) — an approval's "Always"
// (`allow_always` in its data, what it does in words), a question's `choices` — goes
// to it with a click on the notification itself, as { event_id, action: "open",
// allow_always?, choices? } (the hash: `pushgate-action=open&pushgate-always=…&
// pushgate-choices=…`), for the app to offer them and sign the person's pick.
"use strict";

const pushgateDatabase = "pushgate";
const pushgateStore = "config";

function pushgateOpen() {
    return new Promise((resolve, reject) => {
        const request = indexedDB.open(pushgateDatabase, 1);
        request.onupgradeneeded = () => request.result.createObjectStore(pushgateStore);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
    });
}

async function pushgateConfig(value) {
    const database = await pushgateOpen();
    try {
        return await new Promise((resolve, reject) => {
            const transaction = database.transaction(pushgateStore, value === undefined ? "readonly" : "readwrite");
            const store = transaction.objectStore(pushgateStore);
            const request = value === undefined ? store.get("config") : store.put(value, "config");
            transaction.oncomplete = () => resolve(value === undefined ? request.result : value);
            transaction.onerror = () => reject(transaction.error);
        });
    } finally {
        database.close();
    }
}

/** What the push shows, read from its plaintext; null when it is not Pushgate's. */
function pushgateMessage(data) {
    let message;
    try { message = data?.json(); } catch { return null; }
    if (!message || typeof message !== "object") return null;
    if (message.web_push === 8030 && message.notification && typeof message.notification === "object") {
        const shown = message.notification;
        return {
            title: String(shown.title ?? ""), body: String(shown.body ?? ""), tag: shown.tag,
            data: { navigate: shown.navigate }, badge: shown.app_badge,
        };
    }
    const data_ = message.data && typeof message.data === "object" ? message.data : {};
    return {
        title: String(message.title ?? ""), body: String(message.body ?? ""), tag: message.tag, data: data_,
        actions: Array.isArray(message.actions) ? message.actions : undefined,
        requireInteraction: message.require_interaction === true, silent: message.silent === true,
        badge: data_.badge === undefined ? undefined : Number(data_.badge),
    };
}

/** Tells the gateway what became of `eventID`'s push; a failure changes nothing shown. */
async function pushgateConfirm(kind, eventID) {
    if (!eventID) return;
    const config = await pushgateConfig().catch(() => undefined);
    if (!config?.gateway || !config?.secret || !config?.installationID) return;
    await fetch(new URL("/receipts", config.gateway), {
        method: "POST",
        headers: { Authorization: `Bearer ${config.secret}`, "Content-Type": "application/json" },
        body: JSON.stringify({ installation_id: config.installationID, event_ids: [eventID], kind }),
    }).catch(() => undefined);
}

self.addEventListener("message", (event) => {
    const given = event.data?.pushgate;
    if (!given || typeof given !== "object") return;
    const config = { gateway: String(given.gateway), secret: String(given.secret), installationID: String(given.installationID) };
    event.waitUntil(pushgateConfig(config).then(() => event.source?.postMessage({ pushgate: "configured" })));
});

self.addEventListener("push", (event) => {
    const message = pushgateMessage(event.data);
    if (!message) return;
    const options = {
        body: message.body, tag: message.tag || undefined, data: message.data,
        requireInteraction: message.requireInteraction, silent: message.silent,
    };
    // Browsers that show buttons take a few; the others ignore them. A text action
    // keeps its type and placeholder: Chromium shows it as a field to type in.
    if (message.actions && "maxActions" in Notification) {
        options.actions = message.actions.slice(0, Notification.maxActions)
            .filter((action) => action && typeof action.action === "string")
            .map(pushgateAction);
    }
    const shown = self.registration.showNotification(message.title, options);
    const badge = Number.isInteger(message.badge) && self.navigator.setAppBadge
        ? (message.badge > 0 ? self.navigator.setAppBadge(message.badge) : self.navigator.clearAppBadge())
            .catch(() => undefined)
        : undefined;
    event.waitUntil(Promise.all([shown, badge, shown.then(() => pushgateConfirm("delivered", message.data.event_id))]));
});

/** An action as `showNotification` takes it: a button, or a field to type in. */
function pushgateAction(action) {
    const shown = { action: action.action, title: String(action.title ?? action.action) };
    if (action.type === "text") {
        shown.type = "text";
        if (typeof action.placeholder === "string") shown.placeholder = action.placeholder;
    }
    return shown;
}

/** Hands an action (and the words typed) to a page of the app: one that is open, else a new one. */
async function pushgateHandOver(target, answer) {
    const pages = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const open = pages.find((page) => new URL(page.url).origin === target.origin);
    if (open && answer) {
        open.postMessage({ pushgate: answer });
        await open.focus().catch(() => undefined);
        return;
    }
    if (answer) {
        const fields = { "pushgate-event": answer.event_id, "pushgate-action": answer.action };
        if (answer.reply !== undefined) fields["pushgate-reply"] = answer.reply;
        if (answer.allow_always !== undefined) fields["pushgate-always"] = answer.allow_always;
        if (answer.choices !== undefined) fields["pushgate-choices"] = answer.choices;
        target.hash = new URLSearchParams(fields).toString();
    }
    await self.clients.openWindow(target.href).catch(() => undefined);
}

self.addEventListener("notificationclick", (event) => {
    const data = event.notification.data ?? {};
    event.notification.close();
    const target = new URL(data.web_url || data.navigate || self.registration.scope, self.registration.scope);
    let answer;
    if (event.action && data.event_id) {
        answer = { event_id: String(data.event_id), action: event.action };
        if (typeof event.reply === "string") answer.reply = event.reply;
    } else if (data.event_id && (data.allow_always || data.choices)) {
        // What two buttons cannot offer is chosen in the app.
        answer = { event_id: String(data.event_id), action: "open" };
        if (data.allow_always) answer.allow_always = String(data.allow_always);
        if (data.choices) answer.choices = String(data.choices);
    }
    event.waitUntil(Promise.all([pushgateConfirm("opened", data.event_id), pushgateHandOver(target, answer)]));
});
