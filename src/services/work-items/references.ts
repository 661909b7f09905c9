/**
 * Issue references in free text (commit messages, merge request descriptions, notes), and the ones a closing phrase
 * closes (`Closes #1, #2 and #3`), as the original reads them: Issue.reference_pattern (`#12`, `group/app#12`, and
 * `app#12` in the context project's namespace), Issue.link_reference_pattern (issue URLs on this instance), and
 * Gitlab::ClosingIssueExtractor with the default issue_closing_pattern.
 *
 * Everything here reads in linear time: the paths are bounded as GitLab bounds them, and the closing phrase, which
 * the original matches with one nested, backtracking pattern, is read a reference at a time.
 */

export interface ReferenceContext {
  /** The full path of the project the text belongs to (`group/sub/app`): `#12` is its issue 12. */
  projectPath: string;
  /** The instance's URL, no trailing slash (`http://forge.test`, `http://host/prefix`): issue URLs start with it. */
  baseUrl: string;
}

export interface IssueReference {
  /** The full path of the issue's project, as written in the text (the context's own for `#12`). */
  projectPath: string;
  iid: number;
}

/** Past this many characters a text is not read, so that no caller pays for reading a huge one. */
export const MAX_REFERENCE_TEXT = 1_000_000;
/** The largest iid, a 32-bit integer column: GitLab's reference_valid? takes no more (nor 0). */
const MAX_IID = 2 ** 31 - 1;

/**
 * A project path as PathRegex has it: segments of letters, digits, `_`, `.` and `-`, none starting with `-`. Bounded
 * as GitLab bounds paths (255 characters a segment, 20 ancestors), so that no attempt reads on past what a path can
 * be; in non-unicode patterns `\w` is ASCII, as Ruby's is.
 */
const SEGMENT = String.raw`[\w.][\w.-]{0,254}`;
const PROJECT_PATH = `${SEGMENT}(?:/${SEGMENT}){0,20}`;
/**
 * An URL, taken whole (to the next space or angle bracket): only an issue URL of this instance is a reference, and
 * nothing inside any URL is (`http://elsewhere/app#12` names no issue here), as links are left alone in rendered text.
 */
const ANY_URL = String.raw`https?://[^\s<>]+`;
/** `#12` or `path#12`, the path (if any) in group 2 and the iid's digits in group 3; an URL in group 1. */
const REFERENCE = `(${ANY_URL})|(${PROJECT_PATH})?#(\\d+)`;

/**
 * A reference anywhere in a text. It starts no word: a path is read from its first character (not `b/app#1` out of
 * `a/b/app#1`), and a `#` right after a path character belongs to that path (`app#12`), not to a reference of its own.
 */
const REFERENCE_IN_TEXT = new RegExp(String.raw`(?<![\w./-])(?:${REFERENCE})`, 'g');
/** A reference just where a closing phrase goes on. */
const REFERENCE_HERE = new RegExp(REFERENCE, 'y');

/**
 * The default issue_closing_pattern's words, with the optional `:` and the spaces after (and an `issue`/`issues`
 * before the first reference), in any case (`Closes`, `closes`, `CLOSES`: the original's pattern takes either case of
 * the first letter only; forgekit reads them all alike); the leading word boundary is the one later versions added,
 * so that `disclose #1` and `prefix #1` close nothing.
 */
const CLOSING_WORD = /\b(?:clos(?:e[sd]?|ing)|fix(?:e[sd]|ing)?|resolv(?:e[sd]?|ing)|implement(?:s|ed|ing)?):? +(?:issues? +)?/gi;
/**
 * What may come between two references of one closing phrase: a comma, an `and` after a space, both (`, and`),
 * spaces, or nothing; then `issue`/`issues` again. Every part is optional and taken greedily, so it never backtracks: where it stops, the
 * next reference starts or the phrase ends.
 */
const SEPARATOR = / *,? *(?:(?<= )and +)?(?:issues? +)?/y;

/** Every issue a text references, each once, in the order first met. */
export function issueReferencesIn(text: string, context: ReferenceContext): IssueReference[] {
  const source = readablePart(text);
  const issueUrl = issueUrlPattern(context.baseUrl);
  const references = new ReferenceList();
  for (const match of source.matchAll(REFERENCE_IN_TEXT)) references.add(issueOf(match, context, issueUrl));
  return references.list;
}

/**
 * The issues a text closes: those a closing word (`Closes`, `fixes:`, `Resolved`, `implementing`...) lists, as in
 * `Closes #1, #2 and group/app#3`. Each once, in the order first met; a reference outside such a list (`see #7`)
 * closes nothing, and a list ends at the first thing that is no reference (`Fixes #1 because #2`: #1 only).
 */
export function closingIssueReferencesIn(text: string, context: ReferenceContext): IssueReference[] {
  const source = readablePart(text);
  const issueUrl = issueUrlPattern(context.baseUrl);
  const references = new ReferenceList();
  CLOSING_WORD.lastIndex = 0;
  while (CLOSING_WORD.exec(source)) {
    let position = CLOSING_WORD.lastIndex;
    for (;;) {
      REFERENCE_HERE.lastIndex = position;
      const match = REFERENCE_HERE.exec(source);
      if (!match) break;
      // Any URL goes on with the list, as the original's takes any; only this instance's issue URLs name an issue.
      references.add(issueOf(match, context, issueUrl));
      SEPARATOR.lastIndex = REFERENCE_HERE.lastIndex;
      SEPARATOR.exec(source);
      position = SEPARATOR.lastIndex;
    }
    CLOSING_WORD.lastIndex = position;
  }
  return references.list;
}

/**
 * The text up to MAX_REFERENCE_TEXT characters, cut at its last whitespace before the limit so that a reference
 * across the limit is dropped rather than read short (`#1234` as `#12`); a text with none there is not read at all.
 */
function readablePart(text: string): string {
  if (text.length <= MAX_REFERENCE_TEXT) return text;
  let end = MAX_REFERENCE_TEXT;
  while (end > 0 && !/\s/.test(text[end])) end--;
  return text.slice(0, end);
}

/**
 * An issue's URL on this instance: `<baseUrl>/<namespace>/<project>/issues/<iid>` or `…/-/issues/<iid>`, the project
 * path in group 1 and the iid in group 2. Its path is a full one (a namespace and a project), and the iid ends there:
 * an anchor (`#note_3`), a query, a sub-path or punctuation may follow, not more of a word (`issues/12abc`).
 */
function issueUrlPattern(baseUrl: string): RegExp {
  const base = baseUrl.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  return new RegExp(String.raw`^${base}/(${SEGMENT}(?:/${SEGMENT}){1,20})(?:/-)?/issues/(\d+)(?![\w-])`);
}

/** The issue a reference's match names, or null: an iid out of range, an URL that is not an issue's here. */
function issueOf(match: RegExpMatchArray, context: ReferenceContext, issueUrl: RegExp): IssueReference | null {
  const [, url, path, digits] = match;
  if (url === undefined) return issueAt(fullPathOf(path, context), digits);
  const link = issueUrl.exec(url);
  return link && issueAt(link[1], link[2]);
}

/**
 * The full path a written project path stands for: none is the context project, one segment is a project in the
 * context project's namespace (the original's full_project_path), more are a full path already.
 */
function fullPathOf(path: string | undefined, context: ReferenceContext): string {
  if (path === undefined) return context.projectPath;
  if (path.includes('/')) return path;
  const namespaceEnd = context.projectPath.lastIndexOf('/');
  return namespaceEnd < 0 ? path : `${context.projectPath.slice(0, namespaceEnd)}/${path}`;
}

function issueAt(projectPath: string, digits: string): IssueReference | null {
  // Ten digits at most before converting, so that a thousand-digit run costs nothing.
  const iid = digits.length <= 10 ? Number(digits) : 0;
  return iid >= 1 && iid <= MAX_IID ? { projectPath, iid } : null;
}

/**
 * References in the order first met, each once. Paths compare case aside, as GitLab finds projects by path
 * whatever their case: `Group/App#1` and `group/app#1` are one issue, listed as first written.
 */
class ReferenceList {
  readonly list: IssueReference[] = [];
  private readonly seen = new Set<string>();

  add(reference: IssueReference | null): void {
    if (!reference) return;
    const key = `${reference.projectPath.toLowerCase()}#${reference.iid}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.list.push(reference);
  }
}
