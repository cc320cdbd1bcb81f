// The emulators' phone: GET /inbox (newest first) drawn as a lock screen shows it —
// grouped by thread-id, a newer push replacing an older one with the same collapse
// id, badges on the app icons, time-sensitive pushes marked, each Live Activity's
// latest state — and each push's raw
// headers and JSON on demand. The same page serves the APNs, FCM and Web Push emulators.
// The APNs emulator is also a phone of its own (issue 73, GET /phone): registered with a
// gateway from the form, its sealed pushes opened with its keys, its approvals
// answered with Allow and Deny and its questions and answerable replies in words (POST
// /phone/decide: signed with its decision key, as the app signs), an approval withdrawn
// once an event_resolved push names it; paired with an agent's machine from the link or
// code `pushgate pair` shows (issue 82, POST /phone/pair), its key's fingerprint shown to compare.
import { ago, callJSON, every, h, render, table } from "./components.js";

const refreshSeconds = 2;
const byID = (id) => document.getElementById(id);
// `drafts`: what is typed in a reply's box, kept while the lock screen is drawn again.
const state = { device: "", selected: null, entries: [], phone: null, decided: new Map(), drafts: new Map() };

/** One inbox entry as a phone sees it, from either emulator's record; `index` counts from the oldest. */
function notification(entry, index) {
    if ("device_token" in entry) {
        const headers = entry.headers ?? {};
        const aps = entry.payload?.aps ?? {};
        if (headers["apns-push-type"] === "liveactivity") {
            // An ActivityKit push: it changes an activity on the lock screen, it is no banner.
            return {
                index, entry, service: "APNs", device: entry.device_token, accepted: entry.status === 200,
                failure: entry.reason, app: headers["apns-topic"] ?? "APNs",
                activity: {
                    event: aps.event, timestamp: aps.timestamp, state: aps["content-state"] ?? {},
                    attributes: aps.attributes, dismissal: aps["dismissal-date"],
                },
            };
        }
        // This phone's own pushes, opened with its keys (a sealed one's words are inside).
        const opened = entry.device_token === state.phone?.token ? state.phone.opened?.[headers["apns-id"]] : undefined;
        const payload = opened ?? entry.payload ?? {};
        return {
            index, entry, service: "APNs", device: entry.device_token, accepted: entry.status === 200,
            failure: entry.reason, app: headers["apns-topic"] ?? "APNs", collapseID: headers["apns-collapse-id"],
            ...fromAPS(payload.aps ?? aps), type: payload.type, eventID: payload.event_id, category: aps.category,
            // A sealed push's data comes out of its record as strings, as FCM's.
            answerable: payload.answerable === true || payload.answerable === "true", sealed: opened !== undefined,
            // A question's choices and an approval's "Always" (issue 84).
            choices: parsedChoices(payload.choices), allowAlways: payload.allow_always,
        };
    }
    if ("subscription" in entry) {
        // A Web Push as the emulator opened it: {"title", "body", "data"}.
        const headers = entry.headers ?? {};
        const payload = entry.payload ?? {};
        return {
            index, entry, service: "Web Push", device: entry.subscription, accepted: entry.status === 201,
            failure: entry.error, app: "Web Push", collapseID: headers.topic,
            // A badge update carries no text: no banner, only the icon's count (a string, as FCM's data).
            title: payload.title || undefined, body: payload.body || undefined,
            badge: payload.data?.badge === undefined ? undefined : Number(payload.data.badge),
            threadID: headers.topic, timeSensitive: headers.urgency === "high",
        };
    }
    const message = entry.message ?? {};
    const aps = message.apns?.payload?.aps ?? {};
    const fromApple = fromAPS(aps);
    const android = message.android?.notification ?? {};
    const plain = message.notification ?? {};
    return {
        index, entry, service: "FCM", device: entry.token, accepted: entry.status === 200 && !entry.validate_only,
        failure: entry.error ?? (entry.validate_only ? "validate_only" : undefined),
        app: message.apns?.headers?.["apns-topic"] ?? message.android?.restricted_package_name ?? "FCM",
        collapseID: message.apns?.headers?.["apns-collapse-id"] ?? message.android?.collapse_key,
        ...fromApple,
        title: plain.title ?? android.title ?? fromApple.title,
        body: plain.body ?? android.body ?? fromApple.body,
        threadID: fromApple.threadID ?? android.tag,
        badge: fromApple.badge ?? android.notification_count,
    };
}

/** What `aps` says a phone shows. */
function fromAPS(aps) {
    const alert = aps.alert;
    return {
        title: typeof alert === "object" ? alert?.title : undefined,
        subtitle: typeof alert === "object" ? alert?.subtitle : undefined,
        body: typeof alert === "string" ? alert : alert?.body,
        badge: aps.badge,
        threadID: aps["thread-id"],
        timeSensitive: aps["interruption-level"] === "time-sensitive",
    };
}

/**
 * The lock screen: the pushes that arrived (accepted, with something to show), a
 * newer one hiding each older one of the same device, app and collapse id, grouped
 * by app and thread, the group of the newest push first.
 */
function lockScreen(notifications) {
    const shown = [];
    const byCollapse = new Map();
    // What a withdrawal removed from the screen, as the app's handler removes it; an
    // approval answered on this page stays, with what was answered, until the page reloads.
    const withdrawn = new Set(notifications.filter((item) => item.accepted && item.type === "event_resolved")
        .map((item) => JSON.stringify([item.device, item.eventID])));
    for (const item of notifications) {
        if (!item.accepted || (item.title === undefined && item.body === undefined)) continue;
        if ((item.type === "approval_requested" || item.answerable) && !state.decided.has(item.eventID)
            && withdrawn.has(JSON.stringify([item.device, item.eventID]))) continue;
        const key = item.collapseID ? JSON.stringify([item.device, item.app, item.collapseID]) : null;
        if (key && byCollapse.has(key)) {
            byCollapse.get(key).replaced += 1;
            continue;
        }
        const kept = { ...item, replaced: 0 };
        shown.push(kept);
        if (key) byCollapse.set(key, kept);
    }
    const groups = new Map();
    for (const item of shown) {
        const key = JSON.stringify([item.app, item.threadID ?? ""]);
        if (!groups.has(key)) groups.set(key, { app: item.app, threadID: item.threadID, items: [] });
        groups.get(key).items.push(item);
    }
    return [...groups.values()];
}

/**
 * The Live Activities: each activity token's newest state by `timestamp` (the system
 * ignores an older one), named by the start that created it when the page saw it
 * (a start goes to the push-to-start token, the updates to the activity's own).
 */
function activities(notifications) {
    const names = new Map();
    const latest = new Map();
    for (const item of [...notifications].reverse()) {
        if (!item.accepted || !item.activity) continue;
        const { activity } = item;
        if (activity.event === "start" && activity.attributes?.agentKey) {
            names.set(activity.attributes.agentKey, activity.attributes.agentName);
        }
        const known = latest.get(item.device);
        if (known && known.activity.timestamp > activity.timestamp) continue;
        latest.set(item.device, item);
    }
    const shown = [...latest.values()].map((item) => ({
        item, name: item.activity.attributes?.agentName ?? [...names.values()].at(-1) ?? "Live Activity",
    }));
    // A start's card gives way to the activity it created once that one's own token
    // is pushed to (the phone shows one activity; the emulator sees two tokens).
    return shown.filter(({ item, name }) => item.activity.event !== "start" || !shown.some((other) =>
        other.item.activity.event !== "start" && other.name === name
            && other.item.activity.timestamp >= item.activity.timestamp));
}

const phaseWords = { running: "Running", waiting_for_approval: "Needs your approval", done: "Done", failed: "Failed" };

function activityCard({ item, name }, now) {
    const { activity } = item;
    const state = activity.state;
    const ended = activity.event === "end";
    const minutes = Math.max(0, Math.round((now / 1000 - (state.startedAt ?? now / 1000)) / 60));
    return h("div", {
        class: "activity", dataset: { phase: state.phase ?? "", ended: String(ended), device: item.device },
    },
    h("span", { class: "head" },
        h("span", { class: "name" }, name),
        h("span", {}, ended ? "ended" : `${minutes} min`)),
    h("span", { class: "phase" }, phaseWords[state.phase] ?? state.phase ?? ""),
    state.step ? h("span", { class: "detail step" }, state.step) : null,
    typeof state.toolsUsed === "number" ? h("span", { class: "detail" }, `${state.toolsUsed} tools`) : null,
    state.preview ? h("span", { class: "detail preview" }, state.preview) : null);
}

/** Each app's badge: the newest accepted push that set one. */
function badges(notifications) {
    const apps = new Map();
    for (const item of notifications) {
        if (!item.accepted || item.activity) continue;
        if (!apps.has(item.app)) apps.set(item.app, undefined);
        if (apps.get(item.app) === undefined && typeof item.badge === "number") apps.set(item.app, item.badge);
    }
    return [...apps].map(([app, badge]) => ({ app, badge: badge ?? 0 }));
}

function banner(item, now) {
    const decides = item.category && item.eventID && item.device === state.phone?.token;
    const card = h("button", {
        type: "button", class: "banner", "aria-pressed": String(state.selected === item.index),
        dataset: { focus: `entry-${item.index}`, collapseId: item.collapseID, threadId: item.threadID },
        onclick: () => { state.selected = item.index; draw(); },
    },
    h("span", { class: "head" },
        h("span", { class: "app" }, item.app),
        item.timeSensitive ? h("span", { class: "mark", title: "time-sensitive" }, "Time sensitive") : null,
        h("span", {}, ago(item.entry.received_at, now))),
    item.title ? h("span", { class: "title" }, item.title) : null,
    item.subtitle ? h("span", { class: "title" }, item.subtitle) : null,
    item.body ? h("span", { class: "body" }, item.body) : null,
    item.replaced > 0 ? h("span", { class: "muted replaced" }, `replaced ${item.replaced} earlier`) : null);
    if (!decides) return card;
    const decided = state.decided.get(item.eventID);
    return h("div", { class: "decidable", dataset: { eventId: item.eventID } }, card,
        decided
            ? h("p", { class: "muted decided" }, decided)
            : item.answerable && item.choices ? choicesForm(item)
            : item.answerable ? replyForm(item)
            : h("div", { class: "actions" },
                h("button", { type: "button", dataset: { action: "allow" }, onclick: () => decide(item, "allow") }, "Allow"),
                item.allowAlways
                    ? h("button", { type: "button", title: item.allowAlways, dataset: { action: "allow_always" },
                        onclick: () => decide(item, "allow_always") }, "Always")
                    : null,
                h("button", { type: "button", class: "quiet", dataset: { action: "deny" }, onclick: () => decide(item, "deny") }, "Deny")));
}

/** A push's `choices` (issue 84): the JSON text of its questions or its form's fields; null if none or unreadable. */
function parsedChoices(text) {
    if (typeof text !== "string") return null;
    try {
        const choices = JSON.parse(text);
        return Array.isArray(choices?.questions) || Array.isArray(choices?.fields) ? choices : null;
    } catch {
        return null;
    }
}

/**
 * A question with its choices, as the app shows it (issue 84): one question of up to 4
 * options as buttons; more options, several questions or a form as fields. The answer is
 * the JSON text the agent's side checks: {"<question>": "<label>"}, or the form's content.
 */
function choicesForm(item) {
    const questions = item.choices.questions;
    if (questions?.length === 1 && !questions[0].multi_select && questions[0].options.length > 0 && questions[0].options.length <= 4) {
        const question = questions[0];
        return h("div", { class: "actions choices", role: "group", "aria-label": question.question },
            question.options.map((label) => h("button", {
                type: "button", dataset: { choice: label },
                onclick: () => decide(item, "answer", JSON.stringify({ [question.question]: label })),
            }, label)));
    }
    const draft = (name) => state.drafts.get(`${item.eventID}\n${name}`) ?? "";
    const keep = (name) => (event) => state.drafts.set(`${item.eventID}\n${name}`,
        event.target.type === "checkbox" ? (event.target.checked ? "true" : "") : event.target.value);
    const field = (name, label, control) => h("label", { class: "choice-field" }, h("span", {}, label), control);
    const controls = questions
        ? questions.map((question) => field(question.question, question.question, question.options.length > 0
            ? h("select", { name: question.question, onchange: keep(question.question) },
                h("option", { value: "" }, "Choose…"),
                question.options.map((label) => h("option", { value: label, selected: draft(question.question) === label }, label)))
            : h("input", { name: question.question, type: "text", value: draft(question.question), oninput: keep(question.question) })))
        : item.choices.fields.map((spec) => field(spec.name, spec.title ?? spec.name,
            spec.type === "boolean"
                ? h("input", { name: spec.name, type: "checkbox", checked: draft(spec.name) === "true", onchange: keep(spec.name) })
                : spec.enum
                    ? h("select", { name: spec.name, onchange: keep(spec.name) },
                        h("option", { value: "" }, "Choose…"),
                        spec.enum.map((value) => h("option", { value, selected: draft(spec.name) === value }, value)))
                    : h("input", {
                        name: spec.name, type: spec.type === "string" ? "text" : "number",
                        step: spec.type === "integer" ? "1" : "any", required: spec.required === true,
                        value: draft(spec.name), oninput: keep(spec.name),
                    })));
    return h("form", {
        class: "actions choices", "aria-label": `Answer ${item.title ?? "the agent"}`,
        onsubmit: (event) => {
            event.preventDefault();
            const answer = {};
            for (const question of questions ?? []) {
                const value = draft(question.question);
                if (value) answer[question.question] = value;
            }
            for (const spec of item.choices.fields ?? []) {
                const value = draft(spec.name);
                if (spec.type === "boolean") answer[spec.name] = value === "true";
                else if (value === "") continue;
                else answer[spec.name] = spec.type === "string" ? value : Number(value);
            }
            decide(item, "answer", JSON.stringify(answer));
        },
    }, controls, h("button", { type: "submit", dataset: { action: "answer" } }, "Send"));
}

/** A question's or an answerable reply's text box (issue 74), as iOS shows a text input action. */
function replyForm(item) {
    const label = `Reply to ${item.title ?? "the agent"}`;
    return h("form", {
        class: "actions reply", "aria-label": label,
        onsubmit: (event) => {
            event.preventDefault();
            const words = event.target.words.value.trim();
            if (words) decide(item, "answer", words);
        },
    },
    h("input", {
        name: "words", type: "text", maxlength: "4000", placeholder: "Answer the agent", "aria-label": label, required: true,
        value: state.drafts.get(item.eventID) ?? "", dataset: { focus: `reply-${item.eventID}` },
        oninput: (event) => state.drafts.set(item.eventID, event.target.value),
    }),
    h("button", { type: "submit", dataset: { action: "answer" } }, "Send"));
}

const decidedWords = {
    allow: "Allowed from this phone", allow_always: "Always allowed from this phone", deny: "Denied from this phone",
    answer: "Answered from this phone",
};

/** Answers an approval, or in words a question, as the phone: the emulator signs it with its decision key. */
async function decide(item, decision, message) {
    const answer = await callJSON("/phone/decide", { method: "POST", body: { event_id: item.eventID, decision, message } });
    const words = answer.ok ? decidedWords[decision] : `Not taken: ${answer.body?.message ?? answer.message}`;
    state.decided.set(item.eventID, words);
    draw();
}

/** Registers the emulator's phone with a gateway, as the app does when a chat opens. */
async function registerPhone(event) {
    event.preventDefault();
    const form = event.target;
    const body = { gateway_url: form.gateway.value.trim(), secret: form.secret.value.trim(), cwd: form.cwd.value.trim() };
    const answer = await callJSON("/phone", { method: "POST", body });
    byID("toast").replaceChildren(h("p", { class: answer.ok ? "notice" : "notice error" },
        answer.ok ? `This phone is registered for ${body.cwd}.` : `Not registered: ${answer.body?.message ?? answer.message}`));
    form.secret.value = "";
    await load();
}

/** Pairs the emulator's phone with an agent's machine: the link or code `pushgate pair` shows. */
async function pairPhone(event) {
    event.preventDefault();
    const form = event.target;
    const answer = await callJSON("/phone/pair", { method: "POST", body: { pairing: form.pairing.value.trim() } });
    const completed = answer.body?.completed ?? 0;
    byID("toast").replaceChildren(h("p", { class: answer.ok && completed > 0 ? "notice" : "notice error" },
        !answer.ok ? `Not paired: ${answer.body?.message ?? answer.message}`
            : completed > 0 ? `Pairing sent: check that pushgate pair prints ${answer.body.fingerprint}.`
            : "No pairing is open at the gateway for this code."));
    form.pairing.value = "";
}

async function sayToAgent(event) {
    event.preventDefault();
    const form = event.target;
    const answer = await callJSON("/phone/say", { method: "POST", body: { cwd: form.cwd.value, message: form.words.value } });
    byID("toast").replaceChildren(h("p", { class: answer.ok ? "notice" : "notice error" },
        answer.ok ? `Sent to ${form.cwd.value}.` : `Not sent: ${answer.body?.message ?? answer.message}`));
    if (answer.ok) form.words.value = "";
}

function draw() {
    const now = Date.now();
    const clock = new Date(now);
    byID("clock").textContent = clock.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    byID("date").textContent = clock.toLocaleDateString([], { weekday: "long", month: "long", day: "numeric" });
    // Numbered from the oldest: a push keeps its number while newer ones arrive.
    const all = state.entries.map((entry, index, entries) => notification(entry, entries.length - index));
    const devices = [...new Set(all.map((item) => item.device).filter(Boolean))];
    render(byID("device"), [devices, state.device], () => [
        h("option", { value: "" }, "every device"),
        devices.map((device) => h("option", { value: device, selected: device === state.device }, `${device.slice(0, 8)}…`)),
    ]);
    const mine = all.filter((item) => !state.device || item.device === state.device);
    const groups = lockScreen(mine);
    const running = activities(mine);
    render(byID("activities"), running.map(({ item }) => [item.index, item.activity.timestamp]), () =>
        running.map((activity) => activityCard(activity, now)));
    render(byID("apps"), badges(mine), () => badges(mine).map(({ app, badge }) =>
        h("span", { class: "app-icon", title: app, dataset: { app } },
            (app.split(".").pop() ?? app).slice(0, 1).toUpperCase(),
            badge > 0 ? h("span", { class: "badge", "aria-label": `${app}: badge ${badge}` }, String(badge)) : null)));
    render(byID("banners"), [groups.map((g) => g.items.map((i) => [i.index, i.replaced, ago(i.entry.received_at, now)])), state.selected], () =>
        groups.length === 0
            ? h("p", { class: "empty" }, "No notification yet.")
            : groups.map((group) => h("div", { class: "group", dataset: { app: group.app, thread: group.threadID ?? "" } },
                group.items.map((item) => banner(item, now)),
                group.threadID ? h("p", { class: "stacked", title: group.threadID },
                    `thread ${short(group.threadID, 16)} · ${group.items.length} shown`) : null)));
    const selected = all.find((item) => item.index === state.selected);
    render(byID("raw"), [state.selected, selected?.entry], () => selected ? details(selected) : h("p", { class: "muted" },
        "Choose a notification to see its headers and JSON."));
    const refused = mine.filter((item) => !item.accepted);
    render(byID("refused"), refused.map((item) => item.index), () => refused.length === 0 ? null : [
        h("h3", {}, `Not shown: ${refused.length} refused or dry-run`),
        table(["Received", "Device", "Status", "Why"], refused.slice(0, 50).map((item) => [
            ago(item.entry.received_at, now), h("span", { class: "mono" }, `${(item.device ?? "").slice(0, 8)}…`),
            String(item.entry.status), item.failure ?? ""])),
    ]);
}

/** `text` cut to `length` characters and an ellipsis. */
function short(text, length) {
    return text.length > length ? `${text.slice(0, length)}…` : text;
}

function details(item) {
    const entry = item.entry;
    const headers = { ...(item.service === "FCM" ? entry.message?.apns?.headers ?? {} : entry.headers ?? {}) };
    // The provider token is a credential for as long as it lives: shown cut, like a device token.
    if (headers.authorization) headers.authorization = short(headers.authorization, 20);
    return [
        h("p", {}, `${item.service} · ${entry.received_at} · answered ${entry.status}${item.failure ? ` ${item.failure}` : ""}`),
        table(["Header", "Value"], Object.entries(headers).sort().map(([name, value]) => [h("code", {}, name), h("code", {}, value)]),
            { empty: "No headers." }),
        h("pre", { class: "raw mono", "aria-label": "JSON" },
            JSON.stringify(item.service === "FCM" ? entry.message : entry.payload, null, 2)),
    ];
}

async function load() {
    // Only the APNs emulator is a phone; the others answer 404.
    const phone = await callJSON("/phone");
    state.phone = phone.ok ? phone.body : null;
    byID("phone-form").hidden = !state.phone;
    byID("pair-form").hidden = !state.phone?.gateway;
    byID("say-form").hidden = !state.phone?.gateway;
    const cwds = state.phone?.cwds ?? [];
    render(byID("say-cwd"), [cwds], () => cwds.map((cwd) => h("option", { value: cwd }, cwd)));
    byID("fingerprint").textContent = state.phone?.fingerprint ?? "";
    byID("phone-status").textContent = state.phone
        ? (state.phone.gateway ? `This phone (${short(state.phone.token, 8)}) is registered at ${state.phone.gateway} for ${(state.phone.cwds ?? []).join(", ")}.`
            : `This phone (${short(state.phone.token, 8)}) is registered nowhere yet.`)
        : "";
    const answer = await callJSON("/inbox");
    const toast = byID("toast");
    if (!answer.ok) {
        toast.replaceChildren(h("p", { class: "notice error", dataset: { source: "inbox" } }, `Could not read the inbox: ${answer.message}`));
        return;
    }
    // Only the inbox's own error goes once the inbox reads again: a registration's notice
    // stays (the poll would otherwise wipe it a moment after it was shown).
    if (toast.querySelector("[data-source='inbox']")) toast.replaceChildren();
    state.entries = answer.body ?? [];
    if (state.selected !== null && state.selected > state.entries.length) state.selected = null;
    draw();
}

byID("device").addEventListener("change", (event) => { state.device = event.target.value; draw(); });
byID("phone-form").addEventListener("submit", registerPhone);
byID("pair-form").addEventListener("submit", pairPhone);
byID("say-form").addEventListener("submit", sayToAgent);
byID("clear").addEventListener("click", async () => {
    await fetch("/inbox", { method: "DELETE" });
    state.selected = null;
    await load();
});
const poller = every(refreshSeconds, load);
window.addEventListener("keydown", (event) => { if (event.key === "r" && event.target === document.body) poller.now(); });
