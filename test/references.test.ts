/**
 * Issue references and closing phrases as the original reads them (Issue.reference_pattern,
 * Issue.link_reference_pattern, Gitlab::ClosingIssueExtractor with the default issue_closing_pattern): pure functions,
 * so their exact outputs are asserted here, hostile inputs included.
 */
import { describe, expect, it } from 'vitest';
import {
  closingIssueReferencesIn,
  issueReferencesIn,
  MAX_REFERENCE_TEXT,
  type ReferenceContext,
} from '../src/services/work-items/references.js';

const context: ReferenceContext = { projectPath: 'group/sub/app', baseUrl: 'http://forge.test' };
const issue = (projectPath: string, iid: number) => ({ projectPath, iid });

/** How long a call takes, in milliseconds. */
function timed(call: () => unknown): number {
  const start = performance.now();
  call();
  return performance.now() - start;
}

describe('issueReferencesIn', () => {
  it('reads `#12` as the context project’s issue', () => {
    expect(issueReferencesIn('See #12.', context)).toEqual([issue('group/sub/app', 12)]);
    expect(issueReferencesIn('#1 at the start, (#2) in brackets, [#3], "#4", end #5', context)).toEqual([
      issue('group/sub/app', 1),
      issue('group/sub/app', 2),
      issue('group/sub/app', 3),
      issue('group/sub/app', 4),
      issue('group/sub/app', 5),
    ]);
  });

  it('reads a full path before `#` as another project', () => {
    expect(issueReferencesIn('Related to other/project#4 and deep/a-b/c_d/e.f#5', context)).toEqual([
      issue('other/project', 4),
      issue('deep/a-b/c_d/e.f', 5),
    ]);
  });

  it('reads a single name before `#` as a project in the context project’s namespace', () => {
    expect(issueReferencesIn('Same as lib#7', context)).toEqual([issue('group/sub/lib', 7)]);
    expect(issueReferencesIn('Same as lib#7', { projectPath: 'alice/app', baseUrl: 'http://forge.test' })).toEqual([issue('alice/lib', 7)]);
  });

  it('reads issue URLs of this instance, `/-/` and anchors and trailing punctuation aside', () => {
    expect(
      issueReferencesIn(
        [
          'http://forge.test/group/app/issues/12',
          'http://forge.test/a/b/c/-/issues/13',
          'http://forge.test/group/app/issues/14#note_99',
          '(http://forge.test/group/app/issues/15).',
          '<http://forge.test/group/app/issues/16>',
          'http://forge.test/group/issues/issues/17',
        ].join(' '),
        context,
      ),
    ).toEqual([
      issue('group/app', 12),
      issue('a/b/c', 13),
      issue('group/app', 14),
      issue('group/app', 15),
      issue('group/app', 16),
      issue('group/issues', 17),
    ]);
  });

  it('reads issue URLs under a base URL with a path', () => {
    const prefixed = { projectPath: 'group/app', baseUrl: 'http://host/prefix' };
    expect(issueReferencesIn('http://host/prefix/group/app/issues/3 http://host/group/app/issues/4', prefixed)).toEqual([
      issue('group/app', 3),
    ]);
  });

  it('lists each issue once, in the order first met, paths compared case aside', () => {
    expect(
      issueReferencesIn('#2, #1, #2, group/sub/app#1, http://forge.test/group/sub/app/issues/2, Other/Project#3, other/project#3', context),
    ).toEqual([issue('group/sub/app', 2), issue('group/sub/app', 1), issue('Other/Project', 3)]);
  });

  it.each([
    ['no number', 'see # and #x'],
    ['#0', 'see #0'],
    ['an iid past 2^31-1', 'see #2147483648 and #99999999999999999999'],
    ['a non-numeric URL', 'http://forge.test/group/app/issues/abc'],
    ['an URL of another host', 'http://other.test/group/app/issues/5'],
    ['an URL of another scheme', 'https://forge.test/group/app/issues/5'],
    ['an URL whose iid runs on', 'http://forge.test/group/app/issues/5abc'],
    ['an URL without a namespace', 'http://forge.test/app/issues/5'],
    ['a merge request URL', 'http://forge.test/group/app/merge_requests/5'],
    ['an anchor in another URL', 'http://other.test/group/app#5'],
    ['a path too deep for GitLab', `${'a/'.repeat(21)}a#1`],
    ['a segment too long for GitLab', `${'a'.repeat(256)}#1`],
    ['a merge request', '!3'],
  ])('finds nothing in %s', (_case, text) => {
    expect(issueReferencesIn(text, context)).toEqual([]);
  });

  it('takes a `#` right after a reference as part of it, not as a reference of its own', () => {
    expect(issueReferencesIn('app#1#2 and #3#4', context)).toEqual([issue('group/sub/app', 1), issue('group/sub/app', 3)]);
  });

  it('takes the largest 32-bit iid and leading zeros', () => {
    expect(issueReferencesIn('#2147483647 #012', context)).toEqual([issue('group/sub/app', 2_147_483_647), issue('group/sub/app', 12)]);
  });

  it('takes a path of 21 segments, as GitLab’s 20 ancestors allow', () => {
    const path = `${'a/'.repeat(20)}a`;
    expect(issueReferencesIn(`${path}#1`, context)).toEqual([issue(path, 1)]);
  });
});

describe('closingIssueReferencesIn', () => {
  it.each([
    'Close',
    'Closes',
    'Closed',
    'Closing',
    'close',
    'closes',
    'closed',
    'closing',
    'Fix',
    'Fixes',
    'Fixed',
    'Fixing',
    'fix',
    'fixes',
    'fixed',
    'fixing',
    'Resolve',
    'Resolves',
    'Resolved',
    'Resolving',
    'resolve',
    'resolves',
    'resolved',
    'resolving',
    'Implement',
    'Implements',
    'Implemented',
    'Implementing',
    'implement',
    'implements',
    'implemented',
    'implementing',
  ])('closes what `%s` lists', (word) => {
    expect(closingIssueReferencesIn(`${word} #1`, context)).toEqual([issue('group/sub/app', 1)]);
    expect(closingIssueReferencesIn(`${word}: #1`, context)).toEqual([issue('group/sub/app', 1)]);
  });

  it('reads the closing words in any case', () => {
    expect(closingIssueReferencesIn('closes #1 Fixes #2 rEsolves #3 CLOSES #4 FIXES #5', context)).toEqual(
      [1, 2, 3, 4, 5].map((iid) => issue('group/sub/app', iid)),
    );
  });

  it('closes every reference of a list, whatever separates them', () => {
    expect(closingIssueReferencesIn('Closes #1, #2 and #3', context)).toEqual([1, 2, 3].map((iid) => issue('group/sub/app', iid)));
    expect(closingIssueReferencesIn('Fixes #1 #2,#3 , #4, and #5 and issue #6, issues #7', context)).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((iid) => issue('group/sub/app', iid)),
    );
  });

  it('closes other projects’ issues and issue URLs', () => {
    expect(
      closingIssueReferencesIn(
        'Fixes group/project#4, lib#5 and http://forge.test/group/app/issues/6#note_1. Resolves http://forge.test/group/app/-/issues/7',
        context,
      ),
    ).toEqual([issue('group/project', 4), issue('group/sub/lib', 5), issue('group/app', 6), issue('group/app', 7)]);
  });

  it('closes what follows a colon, an `issue`, and several spaces', () => {
    expect(closingIssueReferencesIn('fixes: #6; closes issue #7; resolves   #8', context)).toEqual([
      issue('group/sub/app', 6),
      issue('group/sub/app', 7),
      issue('group/sub/app', 8),
    ]);
  });

  it('closes only what a closing phrase lists', () => {
    expect(
      closingIssueReferencesIn(
        'Awesome commit (Fix #20, Fixes #21 and Closes #22). This is also related to #17 and fixes #18, #19 and #23.',
        context,
      ),
    ).toEqual([20, 21, 22, 18, 19, 23].map((iid) => issue('group/sub/app', iid)));
    expect(closingIssueReferencesIn('Closes #1 because of #2', context)).toEqual([issue('group/sub/app', 1)]);
  });

  it('goes on past an URL of another host, closing nothing there', () => {
    expect(closingIssueReferencesIn('Closes http://other.test/group/app/issues/5, #6', context)).toEqual([issue('group/sub/app', 6)]);
  });

  it('lists each issue once, in the order first met', () => {
    expect(closingIssueReferencesIn('Closes #2, #1. Fixes #2 and group/sub/app#1, #3', context)).toEqual([
      issue('group/sub/app', 2),
      issue('group/sub/app', 1),
      issue('group/sub/app', 3),
    ]);
  });

  it.each([
    ['no closing word', 'see #7'],
    ['a reference later in an unrelated sentence', 'Closes the gap. Then #8 came'],
    ['a closing word run on', 'Closesx #1'],
    ['a closing word inside another', 'disclose #1, prefix #2, unresolved #3'],
    ['no space after the word', 'Closes#1 Fixes:#2'],
    ['a line break after the word', 'Closes\n#1'],
    ['#0', 'Closes #0'],
    ['an URL of another host', 'Closes http://other.test/group/app/issues/5'],
    ['a non-numeric URL', 'Closes http://forge.test/group/app/issues/abc'],
  ])('closes nothing for %s', (_case, text) => {
    expect(closingIssueReferencesIn(text, context)).toEqual([]);
  });

  it('goes on past a reference out of range, closing nothing there', () => {
    expect(closingIssueReferencesIn('Closes #0, #4294967296 and #2', context)).toEqual([issue('group/sub/app', 2)]);
  });
});

describe('hostile texts', () => {
  const contextPath = 'group/sub/app';

  it('read a closing list of a megabyte in well under a second', () => {
    const text = 'Closes #1, '.repeat(Math.ceil(MAX_REFERENCE_TEXT / 11));
    let closing: unknown;
    let all: unknown;
    expect(timed(() => (closing = closingIssueReferencesIn(text, context)))).toBeLessThan(500);
    expect(timed(() => (all = issueReferencesIn(text, context)))).toBeLessThan(500);
    expect(closing).toEqual([issue(contextPath, 1)]);
    expect(all).toEqual([issue(contextPath, 1)]);
  });

  it.each([
    ['a path without a `#`', 'a/'.repeat(MAX_REFERENCE_TEXT / 2)],
    ['a path too deep ending in `#1`', `${'a/'.repeat(MAX_REFERENCE_TEXT / 2 - 2)}a#1`],
    ['a path of long segments', `${'a'.repeat(254)}/`.repeat(MAX_REFERENCE_TEXT / 255)],
    ['a run of path characters', 'a-'.repeat(MAX_REFERENCE_TEXT / 2)],
    ['a closing word and spaces', `Closes ${' '.repeat(MAX_REFERENCE_TEXT - 8)}x`],
    ['a list of nothing and spaces', `Closes #0${' '.repeat(MAX_REFERENCE_TEXT - 10)}x`],
    ['closing words', 'Closes Fixes: '.repeat(MAX_REFERENCE_TEXT / 14)],
    ['one long URL', `Closes http://forge.test/${'a/'.repeat(MAX_REFERENCE_TEXT / 2 - 20)}issues/1`],
    ['digits', `Closes #${'9'.repeat(MAX_REFERENCE_TEXT - 8)}`],
  ])('read %s in well under a second', (_case, text) => {
    expect(timed(() => expect(closingIssueReferencesIn(text, context)).toEqual([]))).toBeLessThan(500);
    expect(timed(() => expect(issueReferencesIn(text, context)).toEqual([]))).toBeLessThan(500);
  });

  it('read no further than the limit, and no reference across it', () => {
    // `#123` runs across the limit, `#12` ends just before it.
    const head = 'x'.repeat(MAX_REFERENCE_TEXT - 4);
    expect(issueReferencesIn(`${head} #123 #4`, context)).toEqual([]);
    expect(issueReferencesIn(`${head} #12 #4`, context)).toEqual([issue(contextPath, 12)]);
    expect(closingIssueReferencesIn(`${head.slice(8)} Fixes #12 #4`, context)).toEqual([issue(contextPath, 12)]);
    expect(closingIssueReferencesIn(`${head.slice(8)} Fixes #12, #4`, context)).toEqual([issue(contextPath, 12)]);
  });
});
