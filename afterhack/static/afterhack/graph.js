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
  // Past this many nodes the picture may be zoomed with the wheel; smaller ones fit as they are.
  var ZOOMABLE_FROM = 40;
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
          "text-background-color": "#ffffff",
          "text-background-opacity": 1,
          "text-background-padding": 2,
        },
      },
    ];
  }

  function layout(count) {
    // The dagre extension registers itself on window.cytoscape when it loads (it sets window.cytoscapeDagre);
    // without it, a breadth-first layout turned on its side tells the same left-to-right story less tidily.
    var options = window.cytoscapeDagre
      ? { name: "dagre", rankDir: "LR", nodeSep: 24, rankSep: 64, edgeSep: 12, padding: 16 }
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

  // The picture's height follows what it draws: small chains at full size, big ones shrunk to the width.
  function sizeToContent(cy, container) {
    var box = cy.elements().boundingBox();
    var zoom = Math.min(1, (container.clientWidth - 32) / Math.max(box.w, 1));
    var height = Math.max(160, Math.min(680, box.h * zoom + 40));
    container.style.height = height + "px";
    cy.resize();
    cy.fit(undefined, 16);
    if (cy.zoom() > 1) {
      cy.zoom(1);
      cy.center();
    }
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
    markStylesheet();
    figure.hidden = false;
    var cy = window.cytoscape({
      container: container,
      elements: elements(data),
      style: baseStyle().concat(nodeStyles(figure, data.nodes), edgeStyles(figure, data.edges)),
      layout: layout(data.nodes.length),
      userZoomingEnabled: data.nodes.length >= ZOOMABLE_FROM,
      boxSelectionEnabled: false,
      autoungrabify: true,
      autounselectify: true,
    });
    sizeToContent(cy, container);
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
