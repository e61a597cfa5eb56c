// The frame of every page benchhost writes (html_page.hpp): the style sheet with its
// light and dark palettes, the few lines of script, and the escaping of text.
#include "report/html/html_page.hpp"

#include "json/json_writer.hpp"  // valid_utf8

namespace benchhost {
namespace {

constexpr const char* style_sheet = R"css(
:root{--bg:#ffffff;--fg:#1f2328;--muted:#59636e;--border:#d1d9e0;--grid:#eaeef2;--head:#f6f8fa;
--band:rgba(9,105,218,.09);--rowband:rgba(31,35,40,.035);--ok:#1a7f37;--bad:#cf222e;--skip:#9a6700;
--c0:#0072b2;--c1:#d55e00;--c2:#009e73;--c3:#cc79a7;--c4:#56b4e9;--c5:#e69f00;--c6:#6e7781;--c7:#8250df;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--border:#3d444d;--grid:#21262d;
--head:#161b22;--band:rgba(88,166,255,.13);--rowband:rgba(240,246,252,.04);--ok:#3fb950;--bad:#f85149;--skip:#d29922;
--c0:#58a6ff;--c1:#ff8a4c;--c2:#3fcf8e;--c3:#e39bd0;--c4:#8fd0ff;--c5:#f0b400;--c6:#9198a1;--c7:#b692f6}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1260px;margin:0 auto;padding:12px 24px 48px}
h1{font-size:24px;margin:8px 0 2px}h2{font-size:19px;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--border)}
h3{font-size:15px;margin:18px 0 6px}
.subtitle,.muted,figcaption{color:var(--muted)}
nav ul{list-style:none;padding:0;margin:8px 0;display:flex;flex-wrap:wrap;gap:4px 14px}
a{color:var(--c0)}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
table{border-collapse:collapse;margin:6px 0 14px;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid var(--border);padding:4px 9px;text-align:left;vertical-align:top}
th{background:var(--head);font-weight:600;white-space:nowrap}
td.num{text-align:right;white-space:nowrap}
table.scenarios{width:100%}td.axis{white-space:nowrap}
table.facts th{background:none;text-align:left;color:var(--muted);font-weight:500}
.ci{color:var(--muted);font-size:12px}
.status{font-weight:600;white-space:nowrap}
.status.success{color:var(--ok)}.status.skipped{color:var(--skip)}.status.bad{color:var(--bad)}
.totals{display:flex;flex-wrap:wrap;gap:10px;margin:6px 0}
.totals div{border:1px solid var(--border);border-radius:6px;padding:6px 14px;min-width:110px}
.totals b{display:block;font-size:20px}
.warnings{border-left:3px solid var(--skip);padding:2px 12px;margin:8px 0}
ul.problems li{margin:3px 0}
pre{background:var(--head);border:1px solid var(--border);padding:8px;overflow:auto;font-size:12px;max-height:320px}
pre.command{white-space:pre-wrap;overflow-wrap:anywhere}
.figures{display:flex;flex-wrap:wrap;gap:12px 18px;align-items:flex-start}
figure{margin:0}
.no-data{color:var(--muted);font-style:italic}
svg.chart{max-width:100%;height:auto;display:block}
svg.chart text{fill:var(--fg);font-size:11px;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
svg.chart .chart-title{font-size:14px;font-weight:600}
svg.chart .axis-title{font-size:12px;fill:var(--muted)}
svg.chart .legend-text,svg.chart .row-label{font-size:12px}
svg.chart .note{fill:var(--muted);font-style:italic}
.axis,.tick{stroke:var(--muted);fill:none}.grid{stroke:var(--grid);fill:none}
.band{fill:var(--band)}.rowband{fill:var(--rowband)}
.ref{stroke:var(--muted);stroke-dasharray:5 4;stroke-width:1.5;fill:none}
.c0{--c:var(--c0)}.c1{--c:var(--c1)}.c2{--c:var(--c2)}.c3{--c:var(--c3)}.c4{--c:var(--c4)}.c5{--c:var(--c5)}.c6{--c:var(--c6)}.c7{--c:var(--c7)}
.line{stroke:var(--c);stroke-width:2;fill:none;stroke-linejoin:round}
.pt,.swatch{fill:var(--c);stroke:var(--bg);stroke-width:1.5}
.err{stroke:var(--c);stroke-width:1.5;fill:none}
.dot{fill:var(--c);fill-opacity:.45}
.box{fill:var(--c);fill-opacity:.16;stroke:var(--c);stroke-width:1.5}
.whisker{stroke:var(--fg);stroke-width:1.2;fill:none}.median{stroke:var(--fg);stroke-width:2.5}
.marker{stroke:var(--bad);stroke-width:1.5;stroke-dasharray:4 3;fill:none}
svg.chart .marker-label{fill:var(--bad);font-weight:600}.stepped{color:var(--bad)}
svg.spark{display:block;overflow:visible}svg.spark .line{stroke-width:1.5}
tr.step td{background:var(--rowband)}tr.step td:last-child{color:var(--bad);font-weight:600}
tr.fastest td{background:var(--band);font-weight:600}#frameworks td{overflow-wrap:normal}
h3 code,td,li{overflow-wrap:anywhere}
.scroll{overflow-x:auto;max-width:100%}
details{margin:6px 0}details>summary{cursor:pointer;font-weight:600}
.overview td.bench{white-space:nowrap}
.sp{display:block;white-space:nowrap}
.bar{display:inline-block;position:relative;width:96px;height:9px;margin-right:6px;background:var(--grid);vertical-align:middle}
.bar::after{content:"";position:absolute;left:50%;top:-2px;bottom:-2px;border-left:1px solid var(--muted)}
.bar .fill{position:absolute;top:0;bottom:0;background:var(--c)}
table.sortable th{cursor:pointer}table.sortable th[aria-sort=ascending]::after{content:" \25B2"}
table.sortable th[aria-sort=descending]::after{content:" \25BC"}
#filter-box input{font:inherit;padding:4px 8px;width:360px;max-width:100%;margin:4px 10px 4px 0}
.problems .bad{color:var(--bad)}h3 a.muted{font-size:13px;font-weight:400}
table.ranks td.bad{color:var(--bad);font-weight:600}
)css";

// Sorting by a column (click or Enter on its header) for table.sortable, and the filter
// box of the results: a few lines, run at the end of the page. The page reads the same
// without them: the box is made here.
constexpr const char* page_script = R"js(
(function(){
function key(c){var v=c.getAttribute('data-v');return v===null?c.textContent.trim().toLowerCase():(v===''?NaN:parseFloat(v));}
document.querySelectorAll('table.sortable').forEach(function(t){
var hs=t.tHead.rows[0].cells;
Array.prototype.forEach.call(hs,function(h,i){
h.tabIndex=0;h.title='Sort by '+h.textContent;
function sort(){var asc=h.getAttribute('aria-sort')!=='ascending',b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows);
rows.sort(function(x,y){var a=key(x.cells[i]),c=key(y.cells[i]);
if(typeof a==='number'||typeof c==='number'){if(isNaN(a))return isNaN(c)?0:1;if(isNaN(c))return -1;return asc?a-c:c-a;}
return asc?a.localeCompare(c):c.localeCompare(a);});
Array.prototype.forEach.call(hs,function(o){o.removeAttribute('aria-sort');});
h.setAttribute('aria-sort',asc?'ascending':'descending');rows.forEach(function(r){b.appendChild(r);});}
h.addEventListener('click',sort);h.addEventListener('keydown',function(e){if(e.key==='Enter')sort();});});});
var box=document.getElementById('filter-box');if(!box)return;
var input=document.createElement('input'),count=document.createElement('span');
input.type='search';input.placeholder='Filter scenarios: words of their id, axes or status';input.setAttribute('aria-label','Filter scenarios');
count.className='muted';box.appendChild(input);box.appendChild(count);
var rows=document.querySelectorAll('table.filterable tbody tr');
function filter(){var words=input.value.toLowerCase().split(/\s+/).filter(Boolean),shown=0;
rows.forEach(function(r){var text=(r.getAttribute('data-id')+' '+r.textContent).toLowerCase();
var ok=words.every(function(w){return text.indexOf(w)>=0;});r.hidden=!ok;if(ok)shown++;});
document.querySelectorAll('.bench').forEach(function(b){b.hidden=!b.querySelector('tbody tr:not([hidden])');});
count.textContent=words.length?shown+' of '+rows.length+' scenarios':'';}
input.addEventListener('input',filter);
})();
)js";

}  // namespace

std::string html_escape(std::string_view text) {
    const std::string valid = valid_utf8(text);
    std::string out;
    out.reserve(valid.size());
    for (const char c : valid) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            case '\t':
            case '\n':
                out += c;
                break;
            case '\r':
                out += '\n';
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) break;  // not allowed in HTML text
                out += c;
        }
    }
    return out;
}

std::string html_page_start(const std::string& title) {
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
           "<meta name=\"color-scheme\" content=\"light dark\">\n<title>" +
           html_escape(title) + "</title>\n<style>" + style_sheet + "</style>\n</head>\n<body>\n<main>\n";
}

std::string html_page_end() { return "</main>\n</body>\n</html>\n"; }

std::string html_page_script() { return std::string("<script>") + page_script + "</script>\n"; }

}  // namespace benchhost
