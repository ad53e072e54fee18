// Streamlit's own English in Portuguese (issue 23 item 9), served from the app's own origin (CSP script-src
// 'self'). Streamlit 1.67 has no setting for the language of its widgets (the upload box, the table's
// toolbar and column menu, an element's fullscreen button), so this script, mounted once per page by
// ui/front_end_words.py, watches the app's document (a v2 component runs in it, not in an iframe) and
// replaces those strings where a person reads them: text, tooltips (title), aria-label and placeholder.
// Only exact strings of Streamlit's own interface are replaced, never text inside the app's content
// (markdown, text, table cells): a user's "Search" stays as typed. Plotly's mode bar is translated by
// Plotly itself (config.locales in ui/charts.py); its data-title is covered here too, in case.
const WORDS = {
  // upload box (FileUploader)
  "Upload": "Escolher arquivo",
  "Upload directories": "Escolher pastas",
  "Add files": "Adicionar arquivos",
  "Drag and drop a file here": "Arraste e solte o arquivo aqui",
  "Drag and drop files here": "Arraste e solte os arquivos aqui",
  "Drag and drop directories here": "Arraste e solte as pastas aqui",
  "Remove file": "Remover arquivo",
  "Delete": "Excluir",
  "Clear": "Limpar",
  // the table's toolbar, search and column menu (DataFrame)
  "Download as CSV": "Baixar como CSV",
  "Search": "Pesquisar",
  "Close Search": "Fechar pesquisa",
  "Next Result": "Próximo resultado",
  "Previous Result": "Resultado anterior",
  "Show/hide columns": "Mostrar/ocultar colunas",
  "Clear selection": "Limpar seleção",
  "Add row": "Adicionar linha",
  "Delete row(s)": "Excluir linha(s)",
  "Dataframe column menu": "Menu da coluna",
  "Sort ascending": "Ordenar crescente",
  "Sort descending": "Ordenar decrescente",
  "Format": "Formato",
  "Autosize": "Ajustar largura",
  "Pin column": "Fixar coluna",
  "Unpin column": "Soltar coluna",
  "Hide column": "Ocultar coluna",
  "Copy column name": "Copiar nome da coluna",
  "Select all": "Selecionar todas",
  "No data": "Sem dados",
  "No content": "Sem conteúdo",
  "Automatic": "Automático",
  "Localized": "Regional",
  "Plain": "Simples",
  "Compact": "Compacto",
  "Scientific": "Científico",
  "Percent": "Porcentagem",
  "Calendar": "Calendário",
  "Distance": "Distância",
  "Relative": "Relativo",
  "Duration": "Duração",
  // a text field's hint (inside a form or on its own)
  "Press Enter to submit form": "Pressione Enter para enviar o formulário",
  "Press Enter to apply": "Pressione Enter para aplicar",
  // an element's toolbar (charts, tables, images)
  "Fullscreen": "Tela cheia",
  "View fullscreen": "Tela cheia",
  "Close fullscreen": "Sair da tela cheia",
  "Exit fullscreen": "Sair da tela cheia",
  // Plotly's mode bar (data-title), should its own locale not apply
  "Download plot as a PNG": "Baixar gráfico em PNG",
  "Download plot as a png": "Baixar gráfico em PNG",
  "Download plot": "Baixar gráfico",
  "Zoom": "Zoom",
  "Pan": "Mover",
  "Box Select": "Selecionar retângulo",
  "Lasso Select": "Selecionar laço",
  "Zoom in": "Aproximar",
  "Zoom out": "Afastar",
  "Autoscale": "Escala automática",
  "Reset axes": "Restaurar eixos",
  "Reset view": "Restaurar vista",
  "Toggle Spike Lines": "Linhas de referência",
  "Show closest data on hover": "Mostrar o dado mais próximo",
  "Compare data on hover": "Comparar dados",
  // the app's frame
  "Choose an option": "Escolha uma opção",
  "Choose options": "Escolha opções",
  "No options to select": "Nenhuma opção",
  "No results": "Nenhum resultado",
  "Collapse sidebar": "Recolher menu lateral",
  "App pages": "Páginas",
  "Sidebar": "Menu lateral",
  "Decrement": "Diminuir",
  "Increment": "Aumentar",
  "file upload": "enviar arquivo",
  "Show password text": "Mostrar a senha",
  "Hide password text": "Ocultar a senha",
  "Expand sidebar": "Abrir menu lateral",
  "Skip to main content": "Ir para o conteúdo",
  "Scroll tabs right": "Mais abas à direita",
  "Scroll tabs left": "Mais abas à esquerda",
  "Link to heading": "Link para o título",
  "Open": "Abrir",
  "Close": "Fechar",
  "Running...": "Executando…",
};
// "25MB per file" / "200MB per file • CSV, XLSX"; "TXT files are not allowed."; "File must be 25.0MB or smaller."
const PATTERNS = [
  [/^(\d+(?:\.\d+)?)\s?(B|KB|MB|GB) per file( • .+)?$/,
    (m) => `Até ${m[1].replace(".", ",")} ${m[2]} por arquivo${m[3] || ""}`],
  [/^(.+) files are not allowed\.$/, (m) => `Arquivos ${m[1]} não são aceitos.`],
  [/^File must be (\d+(?:\.\d+)?)\s?(B|KB|MB|GB) or smaller\.$/,
    (m) => `O arquivo deve ter até ${m[1].replace(".", ",")} ${m[2]}.`],
  [/^Help for (.+)$/, (m) => `Ajuda: ${m[1]}`],
  // an image's fullscreen button names the image: "Fullscreen: <alt>"
  [/^Fullscreen: (.+)$/, (m) => `Tela cheia: ${m[1]}`],
];
const ATTRIBUTES = ["title", "aria-label", "placeholder", "data-title"];
// The app's content: what the pages wrote (and the cells a table shows) is never touched.
const CONTENT = '[data-testid="stMarkdown"], [data-testid="stText"], [data-testid="stCode"], [role="gridcell"], ' +
  '[data-testid="stMetricValue"], textarea, [contenteditable="true"]';

function portuguese(value) {
  const text = value.trim();
  if (!text) {
    return null;
  }
  if (Object.prototype.hasOwnProperty.call(WORDS, text)) {
    return WORDS[text] === text ? null : value.replace(text, WORDS[text]);
  }
  for (const [pattern, make] of PATTERNS) {
    const m = text.match(pattern);
    if (m) {
      return value.replace(text, make(m));
    }
  }
  return null;
}

function inContent(node) {
  const el = node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement;
  return !el || el.closest(CONTENT) !== null;
}

function fixText(node) {
  if (inContent(node)) {
    return;
  }
  const pt = portuguese(node.nodeValue || "");
  if (pt !== null && pt !== node.nodeValue) {
    node.nodeValue = pt;
  }
}

function fixElement(el) {
  if (el.closest(CONTENT) !== null) {
    return;
  }
  for (const name of ATTRIBUTES) {
    const value = el.getAttribute(name);
    if (value) {
      const pt = portuguese(value);
      if (pt !== null && pt !== value) {
        el.setAttribute(name, pt);
      }
    }
  }
}

function fixTree(root) {
  if (root.nodeType === Node.TEXT_NODE) {
    fixText(root);
    return;
  }
  if (root.nodeType !== Node.ELEMENT_NODE) {
    return;
  }
  fixElement(root);
  for (const el of root.querySelectorAll("[title], [aria-label], [placeholder], [data-title]")) {
    fixElement(el);
  }
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    fixText(walker.currentNode);
  }
}

function start() {
  if (window.__valuationWords) {
    return; // one observer per document, however often the component is mounted
  }
  window.__valuationWords = new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "characterData") {
        fixText(r.target);
      } else if (r.type === "attributes") {
        fixElement(r.target);
      } else {
        r.addedNodes.forEach(fixTree);
      }
    }
  });
  window.__valuationWords.observe(document.documentElement, {
    subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ATTRIBUTES,
  });
  fixTree(document.body);
}

export default function () {
  start();
}
