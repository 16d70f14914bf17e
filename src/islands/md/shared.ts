// What the docs editor's pieces share: the shapes the md API sends, the page tree helpers and
// how a message is shown.
import { ApiError } from '../../lib/client/api';
import { formatDate } from '../../lib/shared/date';
import { notify } from '../../lib/client/notify';
import { useState } from 'react';
import { serverFields, translate, type Fields, type Messages } from '../user/form-helpers';

export type { Messages };

/** A page in the book's tree (GET /api/md/tree), siblings in order. */
export interface TreeNode {
  id: number;
  name: string;
  title: string;
  parentId: number;
  children: TreeNode[];
}

/** A page as the editor starts from it: the revision is what a save is based on. */
export interface PageData {
  name: string;
  title: string;
  content: string;
  revision_id: number;
}

/** The version someone else saved meanwhile (a save's `data.conflict`). */
export interface Conflict {
  revision_id: number;
  title: string;
  content: string;
  author: string;
  time: number;
}

/** `t()` over the island's messages. */
export function translator(messages: Messages): (key: string, values?: Record<string, string | number>) => string {
  return (key, values) => translate(messages, key, values);
}

/** Every page in reading order, with its depth. */
export function flattenTree(tree: readonly TreeNode[], depth = 0): { node: TreeNode; depth: number }[] {
  return tree.flatMap((node) => [{ node, depth }, ...flattenTree(node.children, depth + 1)]);
}

export function findNode(tree: readonly TreeNode[], name: string): TreeNode | null {
  return flattenTree(tree).find((e) => e.node.name === name)?.node ?? null;
}

/** A page and everything below it: where it cannot be moved to. */
export function subtreeNames(node: TreeNode): Set<string> {
  return new Set([node.name, ...flattenTree(node.children).map((e) => e.node.name)]);
}

/** Fills the `{name}` of an address pattern the server gave. */
export function pageAddress(pattern: string, name: string): string {
  return pattern.replace('{name}', encodeURIComponent(name));
}

/** Shows why a call failed (calls made with showErrorMessage: false). */
export function showError(err: unknown): void {
  if (err instanceof ApiError) {
    if (err.message) notify({ type: 'error', message: err.message });
    return;
  }
  throw err;
}

/**
 * A busy flag and field errors for calls made with showErrorMessage: false: field errors land
 * beside their fields, anything else is shown as a notification.
 */
export function useCall(): { busy: boolean; errors: Fields; setErrors(fields: Fields): void; run(action: () => Promise<void>): Promise<void> } {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Fields>({});
  const run = async (action: () => Promise<void>): Promise<void> => {
    setBusy(true);
    try {
      await action();
    } catch (err) {
      const fields = serverFields(err);
      setErrors(fields);
      if (Object.keys(fields).length === 0) showError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, errors, setErrors, run };
}

export function showSuccess(message: string): void {
  notify({ type: 'success', message });
}

/** A unix timestamp on the page's clock: the same zone and format the server renders. */
export function formatTime(seconds: number, timeZone: string): string {
  return formatDate(seconds, 'yyyy-mm-dd hh:MM', timeZone);
}
