// A line diff as a table: old and new line numbers, the line, and folded unchanged stretches.
import { Fragment, useMemo, type ReactElement } from 'react';
import { diffLines, diffView, type DiffLine } from './diff';
import { translator, type Messages } from './shared';

interface Props {
  oldText: string;
  newText: string;
  messages: Messages;
  /** Names the table for assistive technology (what is compared with what). */
  label: string;
  testId?: string;
}

const MARK = { equal: ' ', add: '+', del: '−' } as const;

export default function DiffTable({ oldText, newText, messages, label, testId }: Props): ReactElement {
  const t = translator(messages);
  const view = useMemo(() => diffView(diffLines(oldText, newText)), [oldText, newText]);
  if (view.hunks.length === 0) {
    return <p className="md-diff md-diff--same" data-testid={testId}>{t('mdedit.diff.identical')}</p>;
  }
  const skip = (count: number, key: string): ReactElement => (
    <tr key={key} className="md-diff__skip"><td colSpan={3}>{t('mdedit.diff.skipped', { count })}</td></tr>
  );
  const row = (line: DiffLine, i: number): ReactElement => (
    <tr key={i} className={`md-diff__line md-diff__line--${line.type}`}>
      <td className="md-diff__no">{line.oldNo ?? ''}</td>
      <td className="md-diff__no">{line.newNo ?? ''}</td>
      <td className="md-diff__text">
        <span className="md-diff__mark" aria-hidden="true">{MARK[line.type]}</span>
        {line.type !== 'equal' && <span className="visually-hidden">{t(line.type === 'add' ? 'mdedit.diff.addedLine' : 'mdedit.diff.removedLine')}</span>}
        {line.text}
      </td>
    </tr>
  );
  return (
    <div className="md-diff" data-testid={testId}>
      <p className="md-diff__stats">
        <span className="md-diff__added">{t('mdedit.diff.added', { count: view.added })}</span>
        <span className="md-diff__removed">{t('mdedit.diff.removed', { count: view.removed })}</span>
      </p>
      <div className="md-diff__scroll">
        <table className="md-diff__table" aria-label={label}>
          <thead className="visually-hidden">
            <tr><th scope="col">{t('mdedit.diff.oldLine')}</th><th scope="col">{t('mdedit.diff.newLine')}</th><th scope="col">{t('mdedit.diff.text')}</th></tr>
          </thead>
          <tbody>
            {view.hunks.map((hunk, h) => (
              <Fragment key={h}>
                {hunk.skipped > 0 && skip(hunk.skipped, `s${h}`)}
                {hunk.lines.map(row)}
              </Fragment>
            ))}
            {view.trailing > 0 && skip(view.trailing, 'end')}
          </tbody>
        </table>
      </div>
    </div>
  );
}
