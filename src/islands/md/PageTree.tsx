// The book's pages as a nested list; a click opens a page in the editor.
import type { ReactElement } from 'react';
import type { TreeNode } from './shared';

interface Props {
  nodes: readonly TreeNode[];
  current: string | null;
  onSelect(name: string): void;
  label: string;
}

function Branch({ nodes, current, onSelect }: Omit<Props, 'label'>): ReactElement {
  return (
    <ul className="md-tree__list">
      {nodes.map((node) => (
        <li key={node.id} className="md-tree__item">
          <button type="button" className="md-tree__page" aria-current={node.name === current ? 'page' : undefined}
            onClick={() => onSelect(node.name)} data-page={node.name}>
            <span className="md-tree__title">{node.title}</span>
            <span className="md-tree__name">{node.name}</span>
          </button>
          {node.children.length > 0 && <Branch nodes={node.children} current={current} onSelect={onSelect} />}
        </li>
      ))}
    </ul>
  );
}

export default function PageTree({ nodes, current, onSelect, label }: Props): ReactElement {
  return (
    <nav className="md-tree" aria-label={label} data-testid="page-tree">
      <Branch nodes={nodes} current={current} onSelect={onSelect} />
    </nav>
  );
}
