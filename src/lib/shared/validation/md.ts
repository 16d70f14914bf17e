// Docs input, shared by the API and the editor. Messages are keys of the `validation` and `md` groups.
import { z } from 'zod';
import { INT_MAX } from './common';

export const MAX_PAGE = 200_000;
const book = z.string().trim().min(1).max(100);
const name = z.string().trim().min(1, { error: 'md.pageName' }).max(100, { error: 'md.pageName' });
const title = z.string({ error: 'md.pageTitle' }).trim().min(1, { error: 'md.pageTitle' }).max(150, { error: 'md.pageTitle' });

export const BookInput = z.object({ book });
export const PageRef = z.object({ book, name });
export const SaveInput = z.object({
  book, name, title,
  content: z.string().max(MAX_PAGE, { error: 'validation.bodyTooLong' }),
  base_revision: z.coerce.number().int().min(0).max(INT_MAX),
  message: z.string().trim().max(200).default(''),
}).strict();
export const CreateInput = z.object({ book, name, title, parent: z.string().trim().max(100).default('') }).strict();
export const RenameInput = z.object({ book, name, new_name: name }).strict();
export const MoveInput = z.object({ book, name, direction: z.enum(['up', 'down']).optional(), parent: z.string().trim().max(100).nullable().optional() }).strict()
  .refine((v) => v.direction !== undefined || v.parent !== undefined, { error: 'validation.required', path: ['direction'] });
export const RevisionInput = z.object({ book, name, ids: z.string().regex(/^\d{1,10}(,\d{1,10})?$/).refine((v) => v.split(',').every((n) => Number(n) <= INT_MAX)) });
export const RestoreInput = z.object({ book, name, revision_id: z.coerce.number().int().positive().max(INT_MAX) }).strict();
export const DocSearchInput = z.object({ q: z.string().trim().max(100).default(''), page: z.coerce.number().int().min(1).max(100).default(1) });
