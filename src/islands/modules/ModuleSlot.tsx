// A slot's module components (lib/shared/module-slots.ts): each loaded on demand from its package's
// hashed URL when the slot comes into view, rendered with the page's React, in the space the page
// reserved for it, inside an error boundary. A component that fails to load or throws leaves its
// place empty (and says why in the console): a module never breaks the page around it. Each
// component is a region named after its module (numbered when one module has several in the slot),
// except in slots that sit inside another landmark or a control strip (`landmarks={false}`).
import { Component, useEffect, useState, type ComponentType, type CSSProperties, type ErrorInfo, type ReactElement, type ReactNode } from 'react';
import type { EditorToolbarApi, SlotFill, SlotName, SlotProps } from '../../lib/shared/module-slots';
import { loadModuleExport } from './load-module';

export interface ModuleSlotProps {
  slot: SlotName;
  fills: SlotFill[];
  locale: SlotProps['locale'];
  context: SlotProps['context'];
  /** `editor.toolbar`: the text being edited (EditorSlot renders this island itself). */
  editor?: EditorToolbarApi;
  /**
   * Each component in a region named after its module (default), or a plain box: for slots inside
   * another landmark or control strip (the member-center menu, the editor's toolbar).
   */
  landmarks?: boolean;
}

type State = 'loading' | 'ready' | 'failed';

class Boundary extends Component<{ uid: string; onError(): void; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error(`module ${this.props.uid} failed in its slot`, error, info.componentStack);
    this.props.onError();
  }

  override render(): ReactNode {
    return this.state.failed ? null : this.props.children;
  }
}

function Fill({ fill, label, slot, locale, context, editor, landmarks = true }: { fill: SlotFill; label: string } & Omit<ModuleSlotProps, 'fills'>): ReactElement | null {
  const [loaded, setLoaded] = useState<{ url: string; component: ComponentType<SlotProps> } | null>(null);
  const [state, setState] = useState<State>('loading');

  useEffect(() => {
    let live = true;
    loadModuleExport<ComponentType<SlotProps>>(fill.url, fill.component).then(
      (component) => { if (live) { setLoaded({ url: fill.url, component }); setState('ready'); } },
      (err: unknown) => { console.error(`module ${fill.uid} could not be loaded`, err); if (live) setState('failed'); },
    );
    return () => { live = false; };
  }, [fill.url, fill.component]);

  const View = loaded?.url === fill.url ? loaded.component : null;
  const Box = landmarks ? 'section' : 'div';
  return (
    <Box className="module-slot__fill" data-module={fill.uid} data-module-state={state} aria-label={landmarks ? label : undefined} hidden={state === 'failed'}
      style={{ '--module-reserve': `${fill.height}px` } as CSSProperties}>
      {View && state === 'ready' && (
        <Boundary uid={fill.uid} onError={() => setState('failed')}>
          <View slot={slot} locale={locale} context={context} {...(editor ? { editor } : {})} />
        </Boundary>
      )}
    </Box>
  );
}

/** Each fill's region name: its module's, numbered from the second component of the same module (names of landmarks are unique). */
function labels(fills: readonly SlotFill[]): string[] {
  const seen = new Map<string, number>();
  return fills.map((f) => {
    const n = (seen.get(f.uid) ?? 0) + 1;
    seen.set(f.uid, n);
    return n === 1 ? f.label : `${f.label} ${n}`;
  });
}

export default function ModuleSlot({ fills, ...rest }: ModuleSlotProps): ReactElement {
  const names = labels(fills);
  return <>{fills.map((fill, i) => <Fill key={`${fill.uid}:${fill.component}`} fill={fill} label={names[i]!} {...rest} />)}</>;
}
