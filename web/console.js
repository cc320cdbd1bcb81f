// The console: one namespace seen through the gateway's public functions only
// (GET /ping, GET /diagnostics, GET /healthz (status only); eventStatus for a push's
// timeline; triggerEvent, unregisterSubscription, resolveEvent for its actions). The push secret stays in this tab's sessionStorage
// and travels only as the Authorization header.
import { ago, callJSON, chip, confirmButton, every, fromNow, h, light, render, table, time } from "./components.js";

/** What the device list calls each push service (`token_kind`). */
const serviceNames = { apns: "APNs ", fcm: "FCM ", webpush: "Web Push " };

const secretKey = "pushgate.secret";
const refreshSeconds = 5;
const byID = (id) => document.getElementById(id);

const state = {
    secret: sessionStorage.getItem(secretKey),
    agentsPageToken: null,
    selectedAgent: null,
    devicesPageToken: null,
    agents: [],
    /** The event whose timeline is shown (read again with every refresh), or null. */
    timelineEvent: null,
};

const statusWords = { connected: "connected", recent: "recent", not_connected: "not connected" };

function agentName(agent) {
    if (!agent) return "an agent no longer listed";
    if (agent.agent_display_name) return agent.agent_display_name;
    if (agent.cwd) return agent.cwd.split("/").filter(Boolean).pop() ?? agent.cwd;
    return `${agent.agent_key.slice(0, 8)}…`;
}

let toastTimer;
function toast(text, isError = false) {
    clearTimeout(toastTimer);
    const box = byID("toast");
    box.replaceChildren(h("p", { class: `notice${isError ? " error" : ""}` }, text));
    toastTimer = setTimeout(() => box.replaceChildren(), 10000);
}

function showSignIn(message) {
    state.secret = null;
    sessionStorage.removeItem(secretKey);
    byID("dashboard").hidden = true;
    byID("sign-out").hidden = true;
    byID("who").textContent = "";
    byID("overall").replaceChildren();
    byID("sign-in").hidden = false;
    const error = byID("sign-in-error");
    error.hidden = !message;
    error.textContent = message ?? "";
    byID("secret").value = "";
    byID("secret").focus();
}

function showDashboard() {
    byID("sign-in").hidden = true;
    byID("dashboard").hidden = false;
    byID("sign-out").hidden = false;
}

async function signIn(event) {
    event.preventDefault();
    const secret = byID("secret").value.trim();
    const answer = await callJSON("/ping", { secret });
    if (!answer.ok) {
        const why = answer.status === 404
            ? "No subscription was ever registered with this secret. Check it, or open an agent's chat in the app first."
            : answer.status === 401
                ? `The gateway refused this secret: ${answer.message}`
                : answer.message;
        showSignIn(why);
        return;
    }
    state.secret = secret;
    sessionStorage.setItem(secretKey, secret);
    showDashboard();
    await refresh();
    byID("main").focus();
}

async function refresh() {
    if (!state.secret) return;
    const query = new URLSearchParams({ page_size: "100" });
    if (state.agentsPageToken) query.set("page_token", state.agentsPageToken);
    const [diagnostics, health, devices, timeline] = await Promise.all([
        callJSON(`/diagnostics?${query}`, { secret: state.secret }),
        callJSON("/healthz"),
        state.selectedAgent ? loadDevices() : Promise.resolve(null),
        state.timelineEvent ? loadTimeline(state.timelineEvent) : Promise.resolve(null),
    ]);
    if (diagnostics.status === 401) return showSignIn(`The gateway refused this secret: ${diagnostics.message}`);
    if (!diagnostics.ok) {
        toast(`Could not read the namespace: ${diagnostics.message}`, true);
        return;
    }
    const now = Date.now();
    const answer = diagnostics.body;
    state.agents = answer.agents ?? [];
    byID("who").textContent = `namespace ${answer.server_key.slice(0, 12)}…`;
    render(byID("overall"), [answer.status], () => [light(answer.status), statusWords[answer.status]]);
    renderSources(answer, now);
    renderAgents(answer, now);
    renderDevices(devices, now);
    renderEvents(answer.pending_events ?? [], now);
    renderTimeline(timeline, now);
    renderOwnFigures(answer, health);
    byID("refreshed").textContent =
        `Read at ${new Date(now).toLocaleTimeString()}; the page reads again every ${refreshSeconds} s.`;
}

function loadDevices() {
    const query = new URLSearchParams({ agent_key: state.selectedAgent, page_size: "100" });
    if (state.devicesPageToken) query.set("page_token", state.devicesPageToken);
    return callJSON(`/diagnostics?${query}`, { secret: state.secret });
}

function renderSources(answer, now) {
    const sources = answer.sources ?? [];
    const lastCall = answer.last_seen_at ? `last call ${ago(answer.last_seen_at, now)}` : "no call yet";
    const data = [answer.status, lastCall, sources.map((s) => [s.source, s.status, ago(s.last_seen_at, now)])];
    render(byID("sources"), data, () => [
        h("p", { id: "agent-side" }, light(answer.status),
            h("strong", {}, `The agent side is ${statusWords[answer.status]}`), ` · ${lastCall}`),
        sources.length === 0
            ? h("p", { class: "muted" },
                "No heartbeat has named a source yet; the light above counts every agent-side call.")
            : h("ul", { class: "lights", "aria-label": "Sources" }, sources.map((source) =>
                h("li", { dataset: { source: source.source, status: source.status } },
                    light(source.status),
                    h("span", { class: "name" }, source.source),
                    h("span", {}, `${statusWords[source.status]} · last call `),
                    time(source.last_seen_at, ago(source.last_seen_at, now))))),
    ]);
}

function outcomeChips(outcomes) {
    const entries = Object.entries(outcomes ?? {});
    if (entries.length === 0) return [h("span", { class: "muted" }, "nothing sent yet")];
    return entries.map(([outcome, count]) => {
        const kind = outcome === "delivered" || outcome === "pending" ? outcome : "failed";
        return chip(`${count} ${outcome}`, kind);
    });
}

function renderAgents(answer, now) {
    const agents = answer.agents ?? [];
    const data = [agents, state.selectedAgent, state.agentsPageToken, answer.next_page_token,
        agents.map((a) => [ago(a.last_triggered_at, now), ago(a.last_notification_at, now)])];
    render(byID("agents"), data, () => [
        table(["Agent", "Devices", "Last trigger", "Last push", "Reminders", "Actions"], agents.map((agent) => ({
            key: agent.agent_key,
            class: agent.agent_key === state.selectedAgent ? "selected" : undefined,
            cells: [
                [h("strong", {}, agentName(agent)), h("span", { class: "sub mono" }, agent.cwd ?? agent.agent_key)],
                String(agent.device_count),
                time(agent.last_triggered_at, ago(agent.last_triggered_at, now)),
                [...outcomeChips(agent.last_outcomes),
                    agent.last_notification_at ? h("span", { class: "sub" }, ago(agent.last_notification_at, now)) : null],
                String(agent.pending_reminders),
                h("div", { class: "actions" },
                    h("button", {
                        type: "button", class: "quiet", "aria-pressed": String(agent.agent_key === state.selectedAgent),
                        dataset: { focus: `devices-${agent.agent_key}`, action: "devices" },
                        onclick: () => selectAgent(agent.agent_key),
                    }, "Devices"),
                    h("button", {
                        type: "button", disabled: !agent.cwd, dataset: { focus: `test-${agent.agent_key}`, action: "test-push" },
                        onclick: (event) => sendTestPush(agent, event.currentTarget),
                    }, "Send test push")),
            ],
        })), { empty: "No agent yet: open an agent's chat in the app to register a device." }),
        pager(state.agentsPageToken, answer.next_page_token, "agents", (token) => {
            state.agentsPageToken = token;
            refresh();
        }),
    ]);
}

/** "Next" and "First" buttons of a paged list; null when it has one page. */
function pager(current, next, noun, go) {
    if (!current && !next) return null;
    return h("div", { class: "actions" },
        current ? h("button", { type: "button", class: "quiet", dataset: { focus: `first-${noun}` }, onclick: () => go(null) }, `First ${noun}`) : null,
        next ? h("button", { type: "button", class: "quiet", dataset: { focus: `next-${noun}` }, onclick: () => go(next) }, `Next ${noun}`) : null);
}

function selectAgent(agentKey) {
    state.selectedAgent = state.selectedAgent === agentKey ? null : agentKey;
    state.devicesPageToken = null;
    refresh();
}

function renderDevices(answer, now) {
    const card = byID("devices-card");
    card.hidden = !state.selectedAgent;
    if (!state.selectedAgent) return;
    if (answer && !answer.ok) {
        render(byID("devices"), ["error", answer.message], () =>
            h("p", { class: "notice error" }, `Could not read the devices: ${answer.message}`));
        return;
    }
    const agent = answer?.body?.agents?.[0];
    const devices = answer?.body?.devices ?? [];
    byID("devices-title").textContent = `Devices of ${agentName(agent)}`;
    const data = [state.selectedAgent, state.devicesPageToken, answer?.body?.next_page_token, devices,
        devices.map((d) => ago(d.updated_at, now))];
    render(byID("devices"), data, () => [
        table(["Installation", "Platform", "Token", "App", "Updated", "Last delivery", ""], devices.map((device) => ({
            key: device.installation_id,
            cells: [
                [h("span", { class: "mono" }, device.installation_id),
                    device.device_name ? h("span", { class: "sub device-name" }, device.device_name) : null],
                device.platform ?? "",
                device.token_kind
                    ? [serviceNames[device.token_kind] ?? `${device.token_kind} `,
                        h("span", { class: "mono" }, device.token_kind === "webpush" ? device.token_preview : `${device.token_preview}…`),
                        device.apns_environment ? h("span", { class: "sub" },
                            `${device.apns_environment}${device.apns_environment_learned ? " (learned)" : ""}`) : null,
                        // Its pushes leave sealed for the app's keys: Apple and Google read only the neutral text.
                        device.sealed ? h("span", { class: "sub sealed", title: "pushes sealed for the app's keys" }, "sealed") : null,
                        // Its phone signs allow and deny with a key of its own (never shown; its
                        // fingerprint is, to compare with the phone's and pushgate pair's).
                        device.can_decide ? h("span", { class: "sub decides", title: "answers approvals, signed by the phone's key" }, "decides") : null,
                        device.decision_key_fingerprint ? h("span", { class: "sub mono fingerprint", title: "the decision key's fingerprint" }, device.decision_key_fingerprint) : null]
                    : h("span", { class: "muted" }, "none"),
                [device.bundle_id ?? "", device.app_version ? h("span", { class: "sub" }, `version ${device.app_version}`) : null],
                time(device.updated_at, ago(device.updated_at, now)),
                device.last_outcome
                    ? [chip(device.last_outcome, device.last_outcome),
                        device.last_reason ? h("span", { class: "sub reason" }, device.last_reason) : null]
                    : h("span", { class: "muted" }, "no delivery of the last push"),
                confirmButton("Remove", "Confirm removal", () => removeDevice(agent, device.installation_id),
                    { dataset: { focus: `remove-${device.installation_id}`, action: "remove" } }),
            ],
        })), { empty: "This agent has no device." }),
        pager(state.devicesPageToken, answer?.body?.next_page_token, "devices", (token) => {
            state.devicesPageToken = token;
            refresh();
        }),
    ]);
}

function renderEvents(events, now) {
    const names = new Map(state.agents.map((agent) => [agent.agent_key, agentName(agent)]));
    const data = [events, [...names], events.map((e) => [ago(e.created_at, now), (e.next_reminders_at ?? []).map((t) => fromNow(t, now))])];
    render(byID("events"), data, () => table(
        ["Event", "Agent", "Type", "Waiting since", "Next reminders", "Actions"],
        events.map((event) => ({
            key: event.event_id,
            cells: [
                h("span", { class: "mono" }, event.event_id),
                event.agent_key === "*" ? "every agent" : names.get(event.agent_key) ?? `${(event.agent_key ?? "").slice(0, 8)}…`,
                event.type ?? "",
                time(event.created_at, ago(event.created_at, now)),
                event.next_reminders_at === undefined
                    ? h("span", { class: "muted" }, "not recorded")
                    : event.next_reminders_at.length === 0
                        ? h("span", { class: "muted" }, "none left")
                        : h("ul", { class: "lights" }, event.next_reminders_at.map((at) => h("li", {}, time(at, fromNow(at, now))))),
                h("div", { class: "actions" },
                    h("button", {
                        type: "button", class: "quiet", dataset: { focus: `timeline-${event.event_id}`, action: "timeline" },
                        onclick: () => showTimeline(event.event_id),
                    }, "Timeline"),
                    (event.type === "approval_requested" ? ["approved", "denied"] : ["resolved"]).map((resolution) =>
                        h("button", {
                            type: "button", class: resolution === "denied" ? "quiet" : undefined,
                            dataset: { focus: `${resolution}-${event.event_id}`, action: resolution },
                            onclick: (e) => resolveEvent(event.event_id, resolution, e.currentTarget),
                        }, { approved: "Approve", denied: "Deny", resolved: "Resolve" }[resolution])),
                    // Issue 73: only a phone's signed decision is obeyed by a waiting agent hook.
                    event.type === "approval_requested"
                        ? h("span", { class: "sub muted" }, "Closes it on the phones; a waiting agent is not answered (only a phone's signed decision is).")
                        : null),
            ],
        })),
        { empty: "No approval is waiting." }));
}

// The namespace's own figures: its agents' last notifications by outcome (the page of
// agents shown), the approvals waiting, and the gateway's status word. The whole
// gateway's backlog is the operator's (the metrics port), not every namespace's.
function renderOwnFigures(answer, health) {
    const totals = { pending: 0, delivered: 0, failed: 0 };
    for (const agent of answer.agents ?? []) {
        for (const [outcome, count] of Object.entries(agent.last_outcomes ?? {})) {
            totals[outcome === "delivered" || outcome === "pending" ? outcome : "failed"] += count;
        }
    }
    const gateway = health.body?.status ?? (health.ok ? "ok" : "unavailable");
    render(byID("own-figures"), [totals, gateway, answer.pending_events?.length ?? 0], () => [
        h("dl", { class: "figures" },
            [["Pending", totals.pending], ["Delivered", totals.delivered], ["Failed", totals.failed],
                ["Approvals waiting", answer.pending_events?.length ?? 0]]
                .map(([label, value]) => h("div", {}, h("dt", {}, label), h("dd", { dataset: { figure: label } }, String(value))))),
        h("p", { class: "hint" },
            "Your agents' last notifications (the agents listed above), by outcome. ",
            gateway === "ok" ? "The gateway is delivering."
                : h("span", { class: "error" }, gateway === "degraded"
                    ? "The gateway's push service refused its configuration: ask its operator."
                    : "The gateway does not answer its health check.")),
    ]);
}

async function sendTestPush(agent, button) {
    button.disabled = true;
    const answer = await callJSON("/triggerEvent", {
        method: "POST", secret: state.secret,
        body: { cwd: agent.cwd, type: "console_test", title: "Test push", body: "Sent from the Pushgate console." },
    });
    button.disabled = false;
    if (!answer.ok) return toast(`The test push to ${agentName(agent)} was refused: ${answer.message}`, true);
    const result = answer.body;
    const reasons = [...new Set((result.responses ?? []).map((r) => r.reason).filter(Boolean))];
    const failed = result.failure_count > 0;
    toast(`Test push to ${agentName(agent)}: ${result.success_count} delivered, ${result.failure_count} failed, ` +
        `${result.pending_count} pending, of ${result.device_count} devices${reasons.length ? ` (${reasons.join(", ")})` : ""}.`, failed);
    if (result.event_id) return showTimeline(result.event_id);
    refresh();
}

async function removeDevice(agent, installationID) {
    const answer = await callJSON("/unregisterSubscription", {
        method: "POST", secret: state.secret, body: { cwd: agent?.cwd, installation_id: installationID },
    });
    if (!answer.ok) toast(`Could not remove ${installationID}: ${answer.message}`, true);
    else toast(`Removed ${installationID} from ${agentName(agent)}.`);
    refresh();
}

async function resolveEvent(eventID, resolution, button) {
    button.disabled = true;
    const answer = await callJSON("/resolveEvent", {
        method: "POST", secret: state.secret, body: { event_id: eventID, resolution },
    });
    if (!answer.ok) {
        button.disabled = false;
        return toast(`Could not resolve ${eventID}: ${answer.message}`, true);
    }
    toast(`${eventID} ${answer.body.resolution}; ${answer.body.reminders_cancelled} reminders withdrawn.`);
    refresh();
}

function loadTimeline(eventID) {
    return callJSON("/eventStatus", { method: "POST", secret: state.secret, body: { event_id: eventID } });
}

/** Shows `eventID`'s timeline, and keeps it fresh while the page refreshes. */
function showTimeline(eventID) {
    state.timelineEvent = eventID;
    byID("timeline-event").value = eventID;
    refresh();
}

/** What each step of a timeline is called on the page. */
const stepWords = {
    accepted: "accepted", suppressed: "held back", sent: "sent", refused: "refused", retrying: "retrying",
    delivered: "on the phone", opened: "opened", decided: "decided",
};
const stepKinds = { sent: "delivered", delivered: "delivered", opened: "delivered", refused: "failed", retrying: "pending", suppressed: "pending" };

function renderTimeline(answer, now) {
    if (!state.timelineEvent) return render(byID("timeline"), null, () => []);
    if (!answer?.ok) {
        return render(byID("timeline"), ["error", state.timelineEvent, answer?.message], () =>
            h("p", { class: "notice error" }, `No timeline for ${state.timelineEvent}: ${answer?.message}`));
    }
    const installations = answer.body.installations ?? [];
    const data = [answer.body, installations.map((i) => i.timeline.map((step) => ago(step.at, now)))];
    render(byID("timeline"), data, () => [
        h("p", {}, "Event ", h("span", { class: "mono", dataset: { timelineEvent: answer.body.event_id } }, answer.body.event_id)),
        installations.length === 0 ? h("p", { class: "muted" }, "No installation was pushed this event.") : null,
        installations.map((installation) => table(["When", "Step", "Service", "Why", "Service's id"],
            installation.timeline.map((step) => ({
                class: "step",
                cells: [
                    time(step.at, step.state === "retrying" ? fromNow(step.at, now) : ago(step.at, now)),
                    chip(stepWords[step.state] ?? step.state, stepKinds[step.state] ?? ""),
                    step.service ? (serviceNames[step.service] ?? step.service).trim() : "",
                    step.reason ?? "",
                    step.message_id ? h("span", { class: "mono" }, step.message_id) : "",
                ],
            })), { caption: `Installation ${installation.installation_id}${installation.device_name ? ` (${installation.device_name})` : ""}`, empty: "Nothing happened yet." })),
    ]);
}

byID("timeline-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const eventID = byID("timeline-event").value.trim();
    if (eventID) showTimeline(eventID);
});
byID("sign-in-form").addEventListener("submit", signIn);
byID("sign-out").addEventListener("click", () => showSignIn());
if (state.secret) showDashboard(); else showSignIn();
every(refreshSeconds, refresh);
