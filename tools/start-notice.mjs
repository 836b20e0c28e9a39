// `npm start` compiles before it runs (the prestart script), silently and for up to a minute after an update:
// one line says so first. LOG_LEVEL=silent keeps it quiet, as it keeps the server.
if (process.env.LOG_LEVEL !== "silent") {
  console.log("compiling the service into build/ (what changed since the last build; up to a minute after an update)");
}
