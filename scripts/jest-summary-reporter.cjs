// Prints the plain "Tests: N passed, N failed" closing line that CI reads in any language.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const tail = skipped ? `, ${skipped} skipped` : '';
    process.stdout.write(`\nTests: ${results.numPassedTests} passed, ${results.numFailedTests} failed${tail}\n`);
  }
}
module.exports = SummaryReporter;
