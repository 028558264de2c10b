// The one piece of JS of our own on the page: if loading fails before Python takes over (the
// runtime, the lock, a wheel), say so through the same hook Python uses, instead of "loading"
// forever. Once Python runs, it owns data-app-state.
const root = document.documentElement;

const fail = (event) => {
  if (root.dataset.appState !== "loading") return;
  const reason = event.reason ?? event.error ?? event.message;
  root.dataset.appState = "error";
  const status = document.querySelector('[data-testid="status"]');
  if (status) status.textContent = `Could not load: ${reason?.message ?? reason}`;
};

addEventListener("error", fail);
addEventListener("unhandledrejection", fail);
