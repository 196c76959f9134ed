import type { Viz } from '@viz-js/viz';

let viz: Promise<Viz> | undefined;

/** Graphviz compiled to WebAssembly, loaded (a separate chunk) and compiled once per tab, on the first drawing. */
function graphviz(): Promise<Viz> {
  viz ??= import('@viz-js/viz')
    .then((m) => m.instance())
    .catch((err: unknown) => {
      viz = undefined;
      throw err;
    });
  return viz;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * Lays out Graphviz DOT as an SVG image named `label` (role="img", aria-label and a <title>): the drawing is one
 * image to assistive technology, so `label` must say what it shows (the machine, the state that is current).
 */
export async function dotDiagram(dot: string, label: string): Promise<SVGSVGElement> {
  const svg = (await graphviz()).renderSVGElement(dot);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  // Graphviz writes node ids as <title>s inside the drawing; the image's own title comes first and names it.
  const title = document.createElementNS(SVG_NS, 'title');
  title.textContent = label;
  svg.insertBefore(title, svg.firstChild);
  return svg;
}
