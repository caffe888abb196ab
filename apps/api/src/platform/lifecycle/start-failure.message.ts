/**
 * The one line a failed start prints. An error from a file or directory under DATA_DIR names the path
 * it met, not the variable that chose it; the line then says which variable that was (a probe: a
 * DATA_DIR that was a file answered only "cannot create directory /x/file (ENOTDIR)").
 */
export interface StartPaths {
  readonly dataDir: string;
}

export function startFailureMessage(error: unknown, paths: StartPaths | undefined): string {
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  if (paths === undefined || message.includes('DATA_DIR') || !namesPathUnder(message, paths.dataDir))
    return `Passport Identity API failed to start: ${message}`;
  return `Passport Identity API failed to start: ${message} (DATA_DIR=${paths.dataDir})`;
}

/**
 * `message` names `dir` itself or a path inside it (not merely a sibling sharing its prefix). A root
 * directory holds every path, so naming it would blame DATA_DIR for any error (a review).
 */
function namesPathUnder(message: string, dir: string): boolean {
  if (/^(\/|[A-Za-z]:[\\/]?)$/.test(dir)) return false;
  for (let at = message.indexOf(dir); at !== -1; at = message.indexOf(dir, at + 1)) {
    const next = message[at + dir.length];
    if (next === undefined || next === '/' || !/[\w.-]/.test(next)) return true;
  }
  return false;
}
