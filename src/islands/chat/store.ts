// Where conversations live: on the server for members, in this browser for visitors.
import { request } from '../../lib/client/api';
import type { ChatMetadata } from '../../lib/shared/chat';
import type { ChatNode, Tree } from './tree';

export interface Summary { id: string; title: string; updateTime: number }
export interface Loaded { tree: Tree; leafId: string; title: string; model: string }

const LIST_KEY = 'atrium-chat:list';
const chatKey = (id: string): string => `atrium-chat:c:${id}`;

function local(): Storage | null {
  try { return localStorage; } catch { return null; }
}

function readJson<T>(key: string, fallback: T): T {
  try { return JSON.parse(local()?.getItem(key) ?? '') as T; } catch { return fallback; }
}

export interface ChatStore {
  list(q: string): Promise<Summary[]>;
  load(id: string): Promise<Loaded | null>;
  /** Visitors keep the tree after every change; members' is kept by the server as it answers. */
  save(id: string, title: string, tree: Tree, leafId: string, model: string): void;
  /** The branch picked (‹ 1/2 ›): visitors' is kept by save(), members' by the server. */
  branch(id: string, leafId: string): Promise<void>;
  rename(id: string, title: string): Promise<void>;
  remove(id: string): Promise<void>;
}

export const visitorStore: ChatStore = {
  async list(q) {
    const all = readJson<Summary[]>(LIST_KEY, []);
    if (!q) return all;
    const needle = q.toLowerCase();
    return all.filter((s) => s.title.toLowerCase().includes(needle)
      || readJson<{ nodes: ChatNode[] }>(chatKey(s.id), { nodes: [] }).nodes.some((n) => n.text.toLowerCase().includes(needle)));
  },
  async load(id) {
    const saved = readJson<{ nodes: ChatNode[]; leafId: string; title: string; model: string } | null>(chatKey(id), null);
    if (!saved) return null;
    return { tree: new Map(saved.nodes.map((n) => [n.id, n])), leafId: saved.leafId, title: saved.title, model: saved.model };
  },
  save(id, title, tree, leafId, model) {
    const store = local();
    if (!store || !tree.size) return;
    // Keep the HTML out of the browser's storage: it is rendered again from the text.
    const nodes = [...tree.values()].map((n) => ({ ...n, metadata: n.metadata ? { ...n.metadata, html: undefined } : undefined }));
    try {
      store.setItem(chatKey(id), JSON.stringify({ nodes, leafId, title, model }));
      const list = readJson<Summary[]>(LIST_KEY, []).filter((s) => s.id !== id);
      const old = readJson<Summary[]>(LIST_KEY, []).find((s) => s.id === id);
      list.unshift({ id, title: old?.title ?? title, updateTime: Math.floor(Date.now() / 1000) });
      store.setItem(LIST_KEY, JSON.stringify(list.slice(0, 200)));
    } catch { /* storage full: the conversation stays on screen */ }
  },
  async branch() { /* save() keeps the branch shown */ },
  async rename(id, title) {
    const list = readJson<Summary[]>(LIST_KEY, []).map((s) => (s.id === id ? { ...s, title } : s));
    local()?.setItem(LIST_KEY, JSON.stringify(list));
  },
  async remove(id) {
    local()?.removeItem(chatKey(id));
    local()?.setItem(LIST_KEY, JSON.stringify(readJson<Summary[]>(LIST_KEY, []).filter((s) => s.id !== id)));
  },
};

interface ServerMessage { id: string; parentId: string; role: 'user' | 'assistant'; text: string; metadata: ChatMetadata }

export const memberStore: ChatStore = {
  async list(q) {
    const { data } = await request<{ list: Summary[] }>('/api/chat/list', { params: { q: q || undefined } });
    return data.list;
  },
  async load(id) {
    try {
      const { data } = await request<{ title: string; model: string; leafId: string; messages: ServerMessage[] }>('/api/chat/conversation', { params: { id }, showErrorMessage: false });
      const tree: Tree = new Map(data.messages.map((m) => [m.id, { id: m.id, parentId: m.parentId, role: m.role, text: m.text, metadata: m.metadata }]));
      const leafId = data.leafId && tree.has(data.leafId) ? data.leafId : (data.messages.at(-1)?.id ?? '');
      return { tree, leafId, title: data.title, model: data.model };
    } catch {
      return null;
    }
  },
  save() { /* the server stores members' conversations */ },
  async branch(id, leafId) {
    await request('/api/chat/branch', { method: 'POST', data: { id, leafId }, showErrorMessage: false });
  },
  async rename(id, title) {
    await request('/api/chat/rename', { method: 'POST', data: { id, title } });
  },
  async remove(id) {
    await request('/api/chat/delete', { method: 'POST', data: { id } });
  },
};
