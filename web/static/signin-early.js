// The sign-in form of index.html, before Python: a person types and signs in while the app
// loads. It posts the same JSON as the Python page (web/app/api.py) and says what went wrong
// in words; once signed in it says the workspace is still loading. When Python is ready,
// app/shell.py adopts the form through window.anaEarlySignIn (it never draws a second one).
// The server sends the form only to a request without a session cookie (backend/delivery/web.py).
import { get } from "./prefetch.js";

const main = document.getElementById("early-signin");

const WORDS = {
  401: "The username or password is not correct.",
  403: "This account cannot sign in here.",
  429: "Too many attempts. Please wait a minute and try again.",
};
const OFFLINE = "The server can't be reached right now. Please try again in a moment.";
const LOADING = "Signed in. Your workspace is still loading…";

const state = { signedIn: false, adopted: null };

// What the server's refusal says, else words for its status.
async function problemOf(response) {
  try {
    const body = await response.json();
    if (body && typeof body.detail === "string" && body.detail) return body.detail;
  } catch {
    // not JSON: the words below
  }
  return WORDS[response.status] || `The sign-in did not work (the server answered ${response.status}).`;
}

function signedIn() {
  state.signedIn = true;
  // What prefetch.js asked for signed out is stale now: ask again for Python to take.
  const cache = window.anaPrefetch;
  if (cache) {
    cache.clear();
    cache.set("/api/session", get("/api/session"));
    cache.set("/api/workspaces", get("/api/workspaces"));
  }
  if (state.adopted) state.adopted();
}

function start(form) {
  const user = form.querySelector("[data-testid=login-username]");
  const password = form.querySelector("[data-testid=login-password]");
  const submit = form.querySelector("[data-testid=login-submit]");
  const alert = form.querySelector("[data-testid=login-problem]");
  const loading = form.querySelector("[data-testid=signin-loading]");
  submit.disabled = false;

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (state.signedIn || submit.disabled) return;
    submit.disabled = true;
    alert.textContent = "";
    let response;
    try {
      response = await fetch("/api/session", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ username: user.value.trim(), password: password.value }),
      });
    } catch {
      alert.textContent = OFFLINE;
      submit.disabled = false;
      return;
    }
    if (!response.ok) {
      alert.textContent = response.status >= 500 ? OFFLINE : await problemOf(response);
      submit.disabled = false;
      password.focus();
      return;
    }
    user.readOnly = password.readOnly = true;
    loading.textContent = LOADING;
    signedIn();
  });
}

// Python's side (app/shell.py): `adopt(then)` hands over the form; `then()` runs once signed
// in (at once if that already happened). `form` is the element it adopts, when `present`.
window.anaEarlySignIn = {
  // Whether the form is still on screen (a boolean: Pyodide may not turn null into None).
  get present() {
    return Boolean(main && main.isConnected);
  },
  get form() {
    return main.querySelector("form");
  },
  adopt(then) {
    state.adopted = then;
    if (state.signedIn) then();
  },
};

if (main) {
  if (/(?:^|[#&])invite=/.test(location.hash)) {
    main.remove(); // an invitation link: Python shows its own form for it
  } else {
    start(main.querySelector("form"));
    // A server with no account yet shows its setup form instead (Python draws it).
    const setup = fetch("/api/setup", { credentials: "same-origin", cache: "no-store" })
      .then(async (response) => ({ status: response.status, text: await response.text() }))
      .catch(() => null);
    if (window.anaPrefetch) window.anaPrefetch.set("/api/setup", setup);
    setup.then((answer) => {
      let needed = false;
      try {
        needed = answer && answer.status === 200 && JSON.parse(answer.text).needed === true;
      } catch {
        needed = false;
      }
      if (needed && !state.adopted && !state.signedIn) main.remove();
    });
  }
}
