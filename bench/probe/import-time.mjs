// Imports the modules given as arguments one after the other in this fresh process and prints,
// as JSON, when this script started (node start-up until user code runs) and what each import
// added (a module already loaded by an earlier one costs nothing again, so the steps add up to
// the whole).
const started = performance.now();
const steps = [];
for (const spec of process.argv.slice(2)) {
  const t0 = performance.now();
  await import(spec);
  steps.push({ spec, ms: performance.now() - t0 });
}
console.log(JSON.stringify({ started, steps }));
