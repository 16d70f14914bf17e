import { asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { chatModel } from '../db/schema';
import type { EnvModel } from '../chat-env';
import { touched } from '../write-scope';
import { chatArea } from './cache-tags';

/** The built-in site assistant: answers from retrieval alone, always available, free. */
export const SITE_ASSISTANT = 'site';

export type ChatModelConfig = EnvModel & { source: 'env' | 'db' };

/** What a reader may see of a model: never the URL or the key. */
export interface PublicModel {
  name: string;
  title: string;
  assistant: boolean;
  contextWindow: number;
  pricePer1k: number;
  pricePerMessage: number;
  freeDaily: number;
  freeUnit: 'messages' | 'tokens';
}

export interface Reader {
  userId: number;
  groupId: number;
}

/** Every enabled model: the environment's first, then the database's by weight. */
export async function allModels(db: Db, envModel: EnvModel | null): Promise<ChatModelConfig[]> {
  const rows = await db.select().from(chatModel).where(eq(chatModel.status, 1)).orderBy(asc(chatModel.weigh), asc(chatModel.id));
  const list: ChatModelConfig[] = envModel ? [{ ...envModel, source: 'env' }] : [];
  for (const r of rows) {
    if (list.some((m) => m.name === r.name)) continue;
    list.push({
      name: r.name, title: r.title, baseUrl: r.baseUrl, apiKey: r.apiKey, modelId: r.modelId, contextWindow: r.contextWindow,
      pricePer1k: r.pricePer1k, pricePerMessage: r.pricePerMessage, freeDaily: r.freeDaily,
      freeUnit: r.freeUnit as EnvModel['freeUnit'], audience: r.audience as EnvModel['audience'], groups: r.groups, source: 'db',
    });
  }
  return list;
}

/** Whether this reader (userId 0: a visitor) may use the model. */
export function mayUse(model: Pick<EnvModel, 'audience' | 'groups'>, reader: Reader): boolean {
  if (model.audience === 'visitors') return true;
  if (reader.userId === 0) return false;
  if (model.audience === 'members') return true;
  return model.groups.split(',').map((g) => Number(g.trim())).includes(reader.groupId);
}

export function publicModel(m: ChatModelConfig): PublicModel {
  return {
    name: m.name, title: m.title, assistant: false, contextWindow: m.contextWindow, pricePer1k: m.pricePer1k,
    pricePerMessage: m.pricePerMessage, freeDaily: m.freeDaily, freeUnit: m.freeUnit,
  };
}

export function assistantModel(title: string): PublicModel {
  return { name: SITE_ASSISTANT, title, assistant: true, contextWindow: 0, pricePer1k: 0, pricePerMessage: 0, freeDaily: 0, freeUnit: 'messages' };
}

export interface ModelInput {
  name: string;
  title?: string;
  baseUrl: string;
  apiKey?: string;
  modelId: string;
  contextWindow?: number;
  pricePer1k?: number;
  pricePerMessage?: number;
  freeDaily?: number;
  freeUnit?: 'messages' | 'tokens';
  audience?: 'visitors' | 'members' | 'groups';
  groups?: string;
}

/** Adds a model, or changes the one with that name. */
export async function saveModel(db: Db, input: ModelInput): Promise<'added' | 'updated'> {
  const t = Math.floor(Date.now() / 1000);
  const values = {
    title: input.title ?? input.modelId, baseUrl: input.baseUrl, apiKey: input.apiKey ?? '', modelId: input.modelId,
    contextWindow: input.contextWindow ?? 8192, pricePer1k: input.pricePer1k ?? 0, pricePerMessage: input.pricePerMessage ?? 0,
    freeDaily: input.freeDaily ?? 0, freeUnit: input.freeUnit ?? 'messages', audience: input.audience ?? 'members', groups: input.groups ?? '',
    updateTime: t,
  };
  const [existing] = await db.select({ id: chatModel.id }).from(chatModel).where(eq(chatModel.name, input.name));
  if (existing) {
    await db.update(chatModel).set(values).where(eq(chatModel.id, existing.id));
    touched(chatArea);
    return 'updated';
  }
  await db.insert(chatModel).values({ ...values, name: input.name, createTime: t });
  touched(chatArea);
  return 'added';
}

/** Changes some settings of a stored model; false when there is none by that name. */
export async function updateModel(db: Db, name: string, patch: Partial<Omit<ModelInput, 'name'>>): Promise<boolean> {
  const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  const rows = await db.update(chatModel).set({ ...set, updateTime: Math.floor(Date.now() / 1000) }).where(eq(chatModel.name, name)).returning({ id: chatModel.id });
  if (rows.length) touched(chatArea);
  return rows.length > 0;
}

export async function removeModel(db: Db, name: string): Promise<boolean> {
  const rows = await db.delete(chatModel).where(eq(chatModel.name, name)).returning({ id: chatModel.id });
  if (rows.length) touched(chatArea);
  return rows.length > 0;
}
