// The graph pictures (a claim's because-chain, a correction's impact): draws each [data-graph] container from
// the JSON its page embedded with json_script, with the vendored cytoscape and its dagre layout (left to right).
// Colours and line styles come from the legend's swatches (site.css), so they are written once. Clicking a node
// opens its page. Without this script the figure stays hidden and the page's text list says the same.
(function () {
  "use strict";

  // Cytoscape adds a <style> of its own unless an element with this id exists; the CSP refuses inline styles,
  // so the marker stands in for it and its one rule (the container's position) is in site.css.
  var CYTOSCAPE_STYLESHEET = "__________cytoscape_stylesheet";
  var NODE_WIDTH = 168;
  var CHARS_PER_LINE = 23;
  var LINE_HEIGHT = 15;
  var MIN_HEIGHT = 160;
  var MAX_HEIGHT = 640;
  // Below this zoom the labels cannot be read: a bigger picture is shown at it and moved around instead.
  var MIN_ZOOM = 0.6;
  window.afterhackGraphs = window.afterhackGraphs || {};

  function markStylesheet() {
    if (document.getElementById(CYTOSCAPE_STYLESHEET)) return;
    var marker = document.createElement("meta");
    marker.id = CYTOSCAPE_STYLESHEET;
    marker.name = "cytoscape-stylesheet";
    marker.content = "in site.css";
    document.head.appendChild(marker);
  }

  // One cytoscape style per value of `key` among the items (a node's status, an edge's kind), made by `style`
  // from the computed style of the legend entry that shows that value.
  function legendStyles(figure, items, key, legendSelector, style) {
    var seen = {};
    var styles = [];
    items.forEach(function (item) {
      var value = item[key];
      if (seen[value]) return;
      seen[value] = true;
      var shown = figure.querySelector(legendSelector.replace("VALUE", value));
      if (!shown) return;
      styles.push(style(value, window.getComputedStyle(shown)));
    });
    return styles;
  }

  function nodeStyles(figure, nodes) {
    return legendStyles(figure, nodes, "status", '[data-status="VALUE"] .swatch', function (status, swatch) {
      return {
        selector: 'node[status = "' + status + '"]',
        style: { "background-color": swatch.backgroundColor, "border-color": swatch.borderTopColor },
      };
    });
  }

  function edgeStyles(figure, edges) {
    return legendStyles(figure, edges, "kind", '[data-edge="VALUE"] .line', function (kind, line) {
      var color = line.borderTopColor;
      return {
        selector: 'edge[kind = "' + kind + '"]',
        style: { "line-color": color, "target-arrow-color": color, "line-style": line.borderTopStyle },
      };
    });
  }

  function caption(node) {
    var kind = node.kind_words.charAt(0).toUpperCase() + node.kind_words.slice(1);
    return kind + " · " + node.status_words + "\n" + node.label;
  }

  function elements(data) {
    var nodes = data.nodes.map(function (node) {
      var lines = Math.ceil(node.label.length / CHARS_PER_LINE) + 1;
      return {
        group: "nodes",
        data: Object.assign({}, node, { caption: caption(node), height: lines * LINE_HEIGHT + 20 }),
      };
    });
    var edges = data.edges.map(function (edge) {
      return { group: "edges", data: edge };
    });
    return nodes.concat(edges);
  }

  function baseStyle() {
    return [
      {
        selector: "node",
        style: {
          shape: "round-rectangle",
          width: NODE_WIDTH,
          height: "data(height)",
          label: "data(caption)",
          "text-wrap": "wrap",
          "text-max-width": NODE_WIDTH - 16,
          "text-valign": "center",
          "text-halign": "center",
          "font-size": 12,
          "font-family": "system-ui, sans-serif",
          color: "#101828",
          "background-color": "#f2f4f7",
          "border-width": 2,
          "border-color": "#98a2b3",
        },
      },
      { selector: 'node[kind = "decision"]', style: { "border-width": 3 } },
      { selector: 'node[kind = "source"], node[kind = "correction"]', style: { shape: "rectangle" } },
      {
        selector: "edge",
        style: {
          width: 2,
          "curve-style": "bezier",
          "target-arrow-shape": "triangle",
          "line-color": "#667085",
          "target-arrow-color": "#667085",
          label: "data(words)",
          "font-size": 10,
          color: "#475467",
          // The words sit just above their line, on a light backing, so a short edge still shows its line.
          "text-margin-y": -8,
          "text-background-color": "#ffffff",
          "text-background-opacity": 0.8,
          "text-background-padding": 1,
        },
      },
    ];
  }

  // In a big picture the edges' words would cover each other: the legend's line styles tell the kinds apart.
  function crowded(movable) {
    return movable ? [{ selector: "edge", style: { label: "" } }] : [];
  }

  function layout(count) {
    // The dagre extension registers itself on window.cytoscape when it loads (it sets window.cytoscapeDagre);
    // without it, a breadth-first layout turned on its side tells the same left-to-right story less tidily.
    var options = window.cytoscapeDagre
      ? { name: "dagre", rankDir: "LR", nodeSep: 24, rankSep: 76, edgeSep: 12, padding: 16 }
      : {
          name: "breadthfirst",
          directed: true,
          spacingFactor: 1.1,
          transform: function (node, position) {
            return { x: position.y, y: position.x };
          },
        };
    options.animate = false;
    options.fit = count > 0;
    return options;
  }

  // The picture's height follows what it draws: small chains at full size, bigger ones shrunk to fit while
  // they stay legible; past that it is shown at a legible size from its root, to be moved around and zoomed.
  function sizeToContent(cy, container, rootId) {
    var box = cy.elements().boundingBox();
    var fitting = Math.min(1, (container.clientWidth - 32) / Math.max(box.w, 1), (MAX_HEIGHT - 32) / Math.max(box.h, 1));
    var zoom = Math.max(fitting, MIN_ZOOM);
    container.style.height = Math.max(MIN_HEIGHT, Math.min(MAX_HEIGHT, box.h * zoom + 40)) + "px";
    cy.resize();
    if (fitting >= MIN_ZOOM) {
      cy.fit(undefined, 16);
      if (cy.zoom() > 1) {
        cy.zoom(1);
        cy.center();
      }
      return;
    }
    // The left edge of the picture (its sources) at the left of the frame, the claim it is about at mid-height.
    cy.zoom(MIN_ZOOM);
    var root = cy.getElementById(rootId);
    var middle = root.nonempty() ? root.renderedPosition().y : cy.elements().renderedBoundingBox().y1;
    cy.panBy({ x: 16 - cy.elements().renderedBoundingBox().x1, y: container.clientHeight / 2 - middle });
  }

  function open(event) {
    var href = event.target.data("href");
    if (href) window.location.assign(href);
  }

  function draw(container) {
    var source = document.getElementById(container.dataset.graph);
    var figure = container.closest("[data-graph-figure]");
    if (!source || !figure || !window.cytoscape) return;
    var data = JSON.parse(source.textContent);
    var movable = container.dataset.graphMovable === "true";
    markStylesheet();
    figure.hidden = false;
    var cy = window.cytoscape({
      container: container,
      elements: elements(data),
      style: baseStyle().concat(nodeStyles(figure, data.nodes), edgeStyles(figure, data.edges), crowded(movable)),
      layout: layout(data.nodes.length),
      // A big picture may be zoomed with the wheel (corrections/picture.py decides which, and says so).
      userZoomingEnabled: movable,
      boxSelectionEnabled: false,
      autoungrabify: true,
      autounselectify: true,
    });
    sizeToContent(cy, container, data.root);
    cy.on("tap", "node", open);
    cy.on("mouseover", "node[href]", function () {
      container.style.cursor = "pointer";
    });
    cy.on("mouseout", "node", function () {
      container.style.cursor = "";
    });
    container.dataset.graphDrawn = "true";
    window.afterhackGraphs[container.id] = cy;
  }

  function drawIn(root) {
    var scope = root && root.querySelectorAll ? root : document;
    var containers = scope.querySelectorAll("[data-graph]:not([data-graph-drawn])");
    Array.prototype.forEach.call(containers, draw);
  }

  document.addEventListener("DOMContentLoaded", function () {
    drawIn(document);
  });
  // A preview swapped in by htmx brings its own picture.
  document.addEventListener("htmx:load", function (event) {
    drawIn(event.detail && event.detail.elt);
  });
})();
