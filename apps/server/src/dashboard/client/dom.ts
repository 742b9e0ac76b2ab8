type Child = Node | string | null | undefined | false;
type Attributes = Readonly<Record<string, string | number | boolean | null | undefined>>;

/**
 * An element with attributes and children. Strings become text nodes, never markup, so run data
 * put on the page through here is escaped by construction; `false`, null and undefined are skipped,
 * as are attributes whose value is one of them.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: readonly Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...children.filter((child): child is Node | string => child !== null && child !== undefined && child !== false));
  return element;
}

/** Replaces what `parent` holds with `children`. */
export function fill(parent: Element, ...children: readonly Child[]): void {
  parent.replaceChildren(...children.filter((child): child is Node | string => child !== null && child !== undefined && child !== false));
}

/** A status as a coloured badge; the stylesheet colours it by its `data-status`. */
export function statusBadge(status: string): HTMLSpanElement {
  return h('span', { class: 'status', 'data-status': status }, status.replaceAll('_', ' '));
}
