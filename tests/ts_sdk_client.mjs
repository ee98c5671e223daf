// A client on the real ACP TypeScript SDK (@agentclientprotocol/sdk, 2.x or 0.x) for
// tests/test_sdk_transport.py: over stdio it sends one request per run (session/prompt or
// session/load) to a scripted agent, and records when each update's handler finishes (after
// the run's delay for that update's text: seconds on a timer, or {"ticks": n} turns of the
// microtask queue) and when the request's result reaches the caller.  argv[2] is the plan, a
// JSON list of {request, delays}; each run's order goes to stderr as one JSON line.
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const plan = JSON.parse(process.argv[2]);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let log = [];
let delays = {};

async function handle(params) {
  const name = params.update.content.text;
  const delay = delays[name];
  if (typeof delay === "number") await sleep(delay * 1000);
  for (let i = 0; i < (delay?.ticks ?? 0); i++) await null;
  log.push(name);
}

async function runs(send) {
  for (const run of plan) {
    log = [];
    delays = run.delays;
    await send(run.request);
    log.push("result");
    await sleep(100); // let every handler finish
    process.stderr.write(JSON.stringify(log) + "\n");
  }
}

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
const sessionId = "s-1";
const prompt = { sessionId, prompt: [{ type: "text", text: "go" }] };
const load = { sessionId, cwd: "/", mcpServers: [] };

if (typeof acp.client === "function") {
  // 2.x: an app with a typed notification handler; requests go through the context.
  await acp
    .client({ name: "order-probe" })
    .onNotification(acp.methods.client.session.update, ({ params }) => handle(params))
    .connectWith(stream, (agent) =>
      runs((request) =>
        request === "prompt"
          ? agent.request(acp.methods.agent.session.prompt, prompt)
          : agent.request(acp.methods.agent.session.load, load),
      ),
    );
} else {
  // 0.x: a ClientSideConnection with a Client object.
  const client = { sessionUpdate: handle, requestPermission: async () => ({ outcome: { outcome: "cancelled" } }) };
  const conn = new acp.ClientSideConnection(() => client, stream);
  await runs((request) => (request === "prompt" ? conn.prompt(prompt) : conn.loadSession(load)));
}
process.exit(0);
