// Session cookie bridge (issue 13), served from the app's own origin (CSP script-src 'self').
// "set": POST the single-use ticket (in the body, never in a URL) to /sessao, which answers with
// the HttpOnly session cookie. "clear": POST /sessao/sair, which revokes and deletes it.
const done = new Set();

export default function (component) {
  const data = component.data || {};
  const once = `${data.action}:${data.ticket || ""}`;
  if (done.has(once)) {
    return;
  }
  done.add(once);
  const path = data.action === "set" ? "/sessao" : "/sessao/sair";
  fetch(path, {
    method: "POST",
    credentials: "same-origin",
    cache: "no-store",
    headers: { "Content-Type": "text/plain;charset=UTF-8" },
    body: data.action === "set" ? String(data.ticket || "") : "",
  }).catch(() => {
    done.delete(once); // let a later render try again
  });
}
