// Front-end warm-up (issue 17), served from the app's own origin (CSP script-src 'self'): while the login
// form is shown, import the modules of Streamlit's front end that the first page after it draws with
// (charts, tables), so the browser has fetched and compiled them by the time the person is in. The same
// URLs as Streamlit's own imports: the second import is the module already loaded. A failure is harmless:
// Streamlit imports the module itself when it needs it.
const started = new Set();

export default function (component) {
  for (const path of (component.data || {}).modules || []) {
    if (started.has(path)) {
      continue;
    }
    started.add(path);
    import(new URL(path, document.baseURI).href).catch(() => started.delete(path));
  }
}
