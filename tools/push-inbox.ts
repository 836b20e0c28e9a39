// A push inbox for one developer's machine (docs/producers.md, "Seeing a push arrive on your machine"): a Web Push
// service on 127.0.0.1 only (tools/local-push-service.ts) and a subscriber with real keys. It prints the
// subscription to register, then each push that arrives, decrypted as a browser would, with its VAPID
// signature checked against VAPID_PUBLIC_KEY when that is set. Ctrl-C stops it.
//   npx tsx tools/push-inbox.ts
import { makeSubscriber, startPushService, verifyVapidAuthorization } from "./local-push-service.js";

const service = await startPushService();
const subscriber = makeSubscriber();
const subscription = { endpoint: service.endpoint(201), p256dh: subscriber.p256dh, auth: subscriber.auth };
console.log(`push service listening on ${service.origin} (loopback only); register this subscription:`);
console.log(JSON.stringify(subscription));

let shown = 0;
// A developer's tool, not a test: looking at the arrivals a few times a second is plenty.
const watch = setInterval(() => {
  for (const push of service.received.slice(shown)) {
    shown++;
    const publicKey = process.env.VAPID_PUBLIC_KEY;
    let vapid = "VAPID not checked (set VAPID_PUBLIC_KEY)";
    if (publicKey) {
      try {
        vapid = `VAPID ok, sub ${verifyVapidAuthorization(push.headers.authorization, publicKey).sub}`;
      } catch (err) {
        vapid = `VAPID refused: ${(err as Error).message}`;
      }
    }
    let payload: string;
    try {
      payload = JSON.stringify(subscriber.decrypt(push.body));
    } catch (err) {
      payload = `(cannot decrypt: ${(err as Error).message})`;
    }
    console.log(
      `${new Date(push.at).toISOString()} push arrived: ${payload}; TTL ${push.headers.ttl}, urgency ${push.headers.urgency ?? "-"}; ${vapid}`,
    );
  }
}, 250);

process.once("SIGINT", () => {
  clearInterval(watch);
  void service.close().then(() => process.exit(0));
});
