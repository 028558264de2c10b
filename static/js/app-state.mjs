// Before Python runs: if loading fails before Python takes over (the
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

// The theme the user chose last time (Python owns the toggle), applied before Python boots so
// the page does not flash in the other scheme for the seconds that takes.
try {
  const theme = localStorage.getItem("relayscope-theme");
  if (theme === "light" || theme === "dark") root.dataset.theme = theme;
} catch {
  // storage disabled: follow prefers-color-scheme
}
