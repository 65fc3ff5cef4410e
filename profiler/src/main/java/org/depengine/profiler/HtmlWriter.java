package org.depengine.profiler;

import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a {@link TraceModel} as one self-contained HTML page (inline CSS and script, no network):
 * a time ruler with units, lanes per device context and stream, a bar per op ({@code div.op-bar}
 * with {@code data-*} attributes; device parts are {@code div.device-bar}; the members of a bulk's
 * merged op are {@code div.member-bar} children of its bar, with a tooltip each), the dependency arrows
 * (SVG) of the op under the pointer or clicked, the statistics table (sortable; p50/p99 per name;
 * columns that are empty for the whole trace left out) and zoom (mouse wheel, buttons). When the
 * page's address ends in {@code #op=ID}, that op starts pinned, zoomed to it and its neighbours. When the
 * script has built the page it sets {@code data-rendered="true"} on the body; an uncaught script error
 * sets {@code data-script-error} instead. Not part of the API.
 */
/*
 * The data goes into a <script type="application/json"> element written with the HTML-safe JSON
 * writer (so "</script>" in an op name cannot end the element), and the page's script builds the DOM
 * from it synchronously on load; names are only ever set with textContent or attributes, never as
 * HTML. Positions are recomputed from the data on every zoom, so zooming never accumulates rounding.
 */
final class HtmlWriter {
    private HtmlWriter() {
    }

    static void write(TraceModel m, int maxOps, Writer out) throws IOException {
        List<TraceModel.Op> ops = m.ops.size() > maxOps ? latest(m.ops, maxOps) : m.ops;
        Map<TraceModel.Op, Integer> index = new HashMap<>();
        for (int i = 0; i < ops.size(); i++) {
            index.put(ops.get(i), i);
        }
        Map<Long, Integer> laneIndex = new HashMap<>();
        for (int i = 0; i < m.lanes.size(); i++) {
            TraceModel.Lane l = m.lanes.get(i);
            laneIndex.put(((long) l.pid() << 32) | (l.tid() & 0xFFFF_FFFFL), i);
        }
        StringWriter data = new StringWriter();
        JsonWriter j = new JsonWriter(data, true);
        j.beginObject();
        j.field("total", m.ops.size()).field("shown", ops.size()).field("dropped", m.dropped).field("incomplete", m.incomplete);
        j.name("processes").beginArray();
        for (Map.Entry<Integer, String> p : m.processes.entrySet()) {
            j.beginObject().field("pid", p.getKey()).field("name", p.getValue()).endObject();
        }
        j.endArray();
        j.name("lanes").beginArray();
        for (TraceModel.Lane l : m.lanes) {
            j.beginObject().field("pid", l.pid()).field("tid", l.tid()).field("name", l.name())
                    .name("stream").value(l.tid() >= TraceModel.DEVICE_TID).endObject();
        }
        j.endArray();
        j.name("ops").beginArray();
        for (TraceModel.Op o : ops) {
            j.beginObject();
            j.field("id", o.id).field("name", o.name);
            j.field("lane", laneIndex.getOrDefault(((long) o.pid << 32) | (o.hostTid & 0xFFFF_FFFFL), 0));
            j.name("ts").thousandths(o.started - m.origin);
            j.name("dur").thousandths(o.hostTime());
            if (o.isDevice()) {
                j.field("dlane", laneIndex.getOrDefault(((long) o.devicePid << 32) | (o.deviceTid & 0xFFFF_FFFFL), 0));
                j.name("dts").thousandths(o.deviceStart - m.origin);
                j.name("ddur").thousandths(o.deviceTime());
            }
            j.field("prop", Rec.propertyName(o.property)).field("prio", o.priority).field("outcome", Rec.outcomeName(o.outcome));
            j.name("wait").thousandths(o.queueWait() < 0 ? -1000 : o.queueWait());
            j.name("reads");
            TraceWriter.names(j, o.reads, o.totalReads);
            j.name("writes");
            TraceWriter.names(j, o.writes, o.totalWrites);
            members(j, m, o);
            if (!o.args.isEmpty()) {
                j.name("args").beginObject();
                for (Map.Entry<String, Object> a : o.args.entrySet()) {
                    j.name(a.getKey());
                    TraceWriter.argValue(j, a.getValue());
                }
                j.endObject();
            }
            j.endObject();
        }
        j.endArray();
        j.name("flows").beginArray();
        for (TraceModel.Flow f : m.flows) {
            Integer a = index.get(f.from());
            Integer b = index.get(f.to());
            if (a != null && b != null) {
                j.beginArray().value(a).value(b).endArray();
            }
        }
        j.endArray();
        j.name("stats").beginArray();
        for (AggregateStats.Row r : AggregateStats.of(m).rows()) {
            j.beginObject().field("name", r.name()).field("count", r.count());
            j.field("p50Ns", r.runP50Nanos()).field("p99Ns", r.runP99Nanos());
            AggregateStats.summary(j, "run", r.run());
            AggregateStats.summary(j, "wait", r.queueWait());
            AggregateStats.summary(j, "host", r.host());
            AggregateStats.summary(j, "device", r.device());
            j.endObject();
        }
        j.endArray();
        j.endObject();

        out.write(HEAD);
        out.write("<script type=\"application/json\" id=\"profile-data\">");
        out.write(data.toString());
        out.write("</script>\n");
        out.write(SCRIPT);
        out.write("</body>\n</html>\n");
        out.flush();
    }

    /** A merged op's members, drawn as sub-bars inside its bar. */
    private static void members(JsonWriter j, TraceModel m, TraceModel.Op o) throws IOException {
        if (o.members.isEmpty()) {
            return;
        }
        j.name("members").beginArray();
        for (TraceModel.Member mb : o.members) {
            j.beginObject().field("i", mb.index()).field("name", mb.name());
            j.name("ts").thousandths(mb.start() - m.origin);
            j.name("dur").thousandths(mb.duration());
            j.field("outcome", Rec.outcomeName(mb.outcome())).endObject();
        }
        j.endArray();
    }

    private static List<TraceModel.Op> latest(List<TraceModel.Op> ops, int n) {
        return ops.subList(ops.size() - n, ops.size()); // ops are sorted by start
    }

    private static final String HEAD = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            + "<title>depengine profile</title>\n<style>\n"
            + "body{font:12px system-ui,sans-serif;margin:0;background:#fafafa;color:#222}\n"
            + "header{padding:8px 12px;background:#263238;color:#fff;display:flex;gap:12px;align-items:center}\n"
            + "header h1{font-size:15px;margin:0;flex:1}\n"
            + "header button{font:inherit;padding:2px 10px}\n"
            + "#summary{padding:6px 12px;color:#555}\n"
            + "#timeline{display:flex;border-top:1px solid #ccc;border-bottom:1px solid #ccc;background:#fff}\n"
            + "#labels{flex:0 0 220px;border-right:1px solid #ccc}\n"
            + "#scroll{flex:1;overflow-x:auto;overflow-y:hidden;position:relative}\n"
            + "#canvas{position:relative}\n"
            + ".label,.lane{height:22px;box-sizing:border-box;border-bottom:1px solid #eee;white-space:nowrap;overflow:hidden}\n"
            + ".label{padding:3px 6px}\n.label.proc,.lane.proc{background:#eceff1;font-weight:600}\n"
            + ".label.stream{color:#6a1b9a}\n"
            + ".lane{position:relative}\n"
            + ".op-bar,.device-bar{position:absolute;top:3px;height:15px;min-width:1px;border-radius:2px;"
            + "box-sizing:border-box;overflow:hidden;color:#fff;font-size:10px;line-height:15px;padding-left:2px;cursor:default}\n"
            + ".device-bar{background-image:repeating-linear-gradient(45deg,rgba(255,255,255,.25) 0 4px,transparent 4px 8px)}\n"
            + ".op-bar.failed{outline:2px solid #c62828}\n.op-bar.skipped{opacity:.45}\n"
            + ".op-bar.has-members{font-size:8px;line-height:7px}\n"
            + ".member-bar{position:absolute;top:7px;height:8px;min-width:1px;box-sizing:border-box;overflow:hidden;"
            + "font-size:7px;line-height:8px;border-left:1px solid rgba(255,255,255,.7)}\n"
            + ".member-bar.failed{border:1px solid #c62828}\n.member-bar.skipped{opacity:.45}\n"
            + "#arrows{position:absolute;left:0;top:0;pointer-events:none;z-index:2}\n"
            + ".lane.ruler,.label.ruler{background:#f5f5f5;color:#555}\n"
            + ".tick{position:absolute;top:0;height:21px;border-left:1px solid #b0bec5;padding-left:3px;font-size:10px;"
            + "line-height:21px;white-space:nowrap}\n"
            + ".op-bar.focus{outline:2px solid #000;z-index:1}\n"
            + "#arrows path{fill:none;stroke:#455a64;stroke-width:1;opacity:.7}\n"
            + "#detail{padding:6px 12px;min-height:18px;font-family:monospace}\n"
            + "table{border-collapse:collapse;margin:8px 12px}\n"
            + "th,td{border:1px solid #ddd;padding:2px 8px;text-align:right}\n"
            + "th{background:#eceff1;cursor:pointer}\nth:first-child,td:first-child{text-align:left}\n"
            + "</style>\n</head>\n<body>\n"
            + "<header><h1>depengine profile</h1>"
            + "<button id=\"zoom-in\" title=\"zoom in\">+</button><button id=\"zoom-out\" title=\"zoom out\">&minus;</button>"
            + "<button id=\"zoom-fit\" title=\"fit\">fit</button></header>\n"
            + "<div id=\"summary\"></div>\n"
            + "<div id=\"timeline\"><div id=\"labels\"></div><div id=\"scroll\"><div id=\"canvas\">"
            + "<svg id=\"arrows\" xmlns=\"http://www.w3.org/2000/svg\"><defs><marker id=\"head\" viewBox=\"0 0 6 6\" "
            + "refX=\"6\" refY=\"3\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0L6,3L0,6z\" "
            + "style=\"fill:#455a64;stroke:none\"/></marker></defs></svg></div></div></div>\n"
            + "<div id=\"detail\">Hover a bar for its details and dependency arrows; click it to pin them; "
            + "wheel over the timeline to zoom.</div>\n"
            + "<h2 style=\"font-size:14px;margin:8px 12px 0\">Statistics per op name (ms)</h2>\n"
            + "<table id=\"stats\"><thead></thead><tbody></tbody></table>\n";

    private static final String SCRIPT = """
            <script>
            window.addEventListener('error',function(e){document.body.setAttribute('data-script-error',String(e.message));});
            (function(){
            'use strict';
            var D=JSON.parse(document.getElementById('profile-data').textContent);
            var LANE_H=22, scroll=document.getElementById('scroll'), canvas=document.getElementById('canvas');
            var labels=document.getElementById('labels'), svg=document.getElementById('arrows');
            var end=0; D.ops.forEach(function(o){end=Math.max(end,o.ts+o.dur,o.dlane!==undefined?o.dts+o.ddur:0);});
            if(end<=0){end=1;}
            // times in the data are microseconds; shown with a unit that suits their size
            function fmt(us){var a=Math.abs(us);
             if(a>=1e6){return +(us/1e6).toPrecision(4)+' s';}
             if(a>=1e3){return +(us/1e3).toPrecision(4)+' ms';}
             if(a>=1||a===0){return +us.toPrecision(4)+' \u00b5s';}
             return +(us*1e3).toPrecision(4)+' ns';}
            // FNV-1a, then the golden angle: similar names still get far-apart hues
            function color(name){var h=0x811c9dc5;for(var i=0;i<name.length;i++){h^=name.charCodeAt(i);h=Math.imul(h,16777619);}
             h=(h>>>0)%1000;return 'hsl('+((h*137.508)%360).toFixed(1)+','+(55+h%3*10)+'%,'+(38+h%4*5)+'%)';}
            // rows: the time ruler, then a header row per process followed by its lanes
            var rowOfLane=[], rows=[{ruler:true}];
            D.processes.forEach(function(p){rows.push({proc:p});
             D.lanes.forEach(function(l,i){if(l.pid===p.pid){rowOfLane[i]=rows.length;rows.push({lane:l});}});});
            var laneDivs=[], ruler=null;
            rows.forEach(function(r){var lab=document.createElement('div'), lane=document.createElement('div');
             lab.className='label'+(r.ruler?' ruler':(r.proc?' proc':(r.lane.stream?' stream':'')));
             lane.className='lane'+(r.ruler?' ruler':(r.proc?' proc':''));
             lab.textContent=r.ruler?'time':(r.proc?r.proc.name:r.lane.name); lab.title=lab.textContent;
             if(r.lane){lane.dataset.pid=r.lane.pid;lane.dataset.tid=r.lane.tid;}
             if(r.ruler){ruler=lane;lane.id='ruler';}
             labels.appendChild(lab);canvas.appendChild(lane);laneDivs.push(lane);});
            var detail=document.getElementById('detail');
            function argText(o){return o.args?'  '+Object.keys(o.args).map(function(k){return k+'='+o.args[k];}).join(' '):'';}
            function describe(o){return o.name+argText(o)+'  #'+o.id+'  '+o.prop+' prio '+o.prio+'  '+o.outcome+'  start '+fmt(o.ts)
             +'  host '+fmt(o.dur)+(o.dlane!==undefined?'  device '+fmt(o.ddur):'')
             +(o.wait>=0?'  wait '+fmt(o.wait):'')+'  reads ['+o.reads.join(', ')+']  writes ['+o.writes.join(', ')+']'
             +(o.members?'  '+o.members.length+' members':'');}
            function describeMember(o,mb){return mb.name+'  member '+mb.i+' of '+o.name+'  #'+o.id+'  '+mb.outcome
             +'  start '+fmt(mb.ts)+'  run '+fmt(mb.dur);}
            // a merged op's members: sub-bars inside its bar, positioned relative to it
            function memberBars(o,b){return (o.members||[]).map(function(mb){var s=document.createElement('div');
             s.className='member-bar'+(mb.outcome==='FAILED'?' failed':'')+(mb.outcome==='SKIPPED'?' skipped':'');
             s.style.background=color(mb.name);s.textContent=mb.name;s.title=describeMember(o,mb);
             s.dataset.name=mb.name;s.dataset.index=mb.i;s.dataset.outcome=mb.outcome;s.dataset.ts=mb.ts;s.dataset.dur=mb.dur;
             s.addEventListener('mouseenter',function(){detail.textContent=describeMember(o,mb);});
             s.addEventListener('mouseleave',function(){detail.textContent=describe(o);});
             b.appendChild(s);return s;});}
            // the arrows into and out of each op; only the focused op's are drawn
            var links=D.ops.map(function(){return [];});
            D.flows.forEach(function(f,k){links[f[0]].push(k);links[f[1]].push(k);});
            var hovered=-1, pinned=-1;
            function focus(){return hovered>=0?hovered:pinned;}
            var bars=[], dbars=[], mbars=[];
            D.ops.forEach(function(o,i){var b=document.createElement('div');b.className='op-bar'
             +(o.outcome==='FAILED'?' failed':'')+(o.outcome==='SKIPPED'?' skipped':'')+(o.members?' has-members':'');
             b.style.background=color(o.name);b.textContent=o.name;b.title=describe(o);mbars[i]=memberBars(o,b);
             b.dataset.opId=o.id;b.dataset.name=o.name;b.dataset.ts=o.ts;b.dataset.dur=o.dur;b.dataset.lane=D.lanes[o.lane].name;
             b.dataset.property=o.prop;b.dataset.outcome=o.outcome;
             b.addEventListener('mouseenter',function(){hovered=i;detail.textContent=describe(o);arrows();});
             b.addEventListener('mouseleave',function(){hovered=-1;arrows();});
             b.addEventListener('click',function(e){e.stopPropagation();pinned=pinned===i?-1:i;detail.textContent=describe(o);arrows();});
             laneDivs[rowOfLane[o.lane]].appendChild(b);bars[i]=b;
             if(o.dlane!==undefined){var d=document.createElement('div');d.className='device-bar';d.style.background=color(o.name);
              d.textContent=o.name;d.title=describe(o);d.dataset.opId=o.id;d.dataset.name=o.name;d.dataset.ts=o.dts;d.dataset.dur=o.ddur;
              d.dataset.lane=D.lanes[o.dlane].name;laneDivs[rowOfLane[o.dlane]].appendChild(d);dbars[i]=d;}});
            canvas.addEventListener('click',function(){pinned=-1;arrows();});
            var scale=1; // px per microsecond
            function fit(){scale=Math.max(1e-6,(scroll.clientWidth-20)/end);}
            function x(t){return t*scale;}
            function arrows(){
             while(svg.childNodes.length>1){svg.removeChild(svg.lastChild);}
             bars.forEach(function(b,i){b.classList.toggle('focus',i===focus());});
             var i=focus(); if(i<0){return;}
             links[i].forEach(function(k){var f=D.flows[k], a=D.ops[f[0]], b=D.ops[f[1]];
              var fromDev=a.dlane!==undefined, x1=fromDev?x(a.dts+a.ddur):x(a.ts+a.dur), y1=(rowOfLane[fromDev?a.dlane:a.lane]+0.5)*LANE_H;
              var x2=x(b.ts), y2=(rowOfLane[b.lane]+0.5)*LANE_H, mx=(x1+x2)/2;
              var p=document.createElementNS('http://www.w3.org/2000/svg','path');p.setAttribute('class','dep-arrow');
              p.setAttribute('d','M'+x1+','+y1+' C'+mx+','+y1+' '+mx+','+y2+' '+x2+','+y2);p.setAttribute('marker-end','url(#head)');
              svg.appendChild(p);});}
            // ticks 1, 2 or 5 times a power of ten microseconds apart, at least 90 px apart
            // (only around the visible part: a deep zoom makes the canvas far wider than the window)
            function ticks(){ruler.textContent='';var step=Math.pow(10,Math.floor(Math.log10(90/scale)));
             if(step*scale<90){step*=2;} if(step*scale<90){step*=2.5;} if(step*scale<90){step*=2;}
             var from=Math.max(0,Math.floor((scroll.scrollLeft-scroll.clientWidth)/scale/step)), to=(scroll.scrollLeft+2*scroll.clientWidth)/scale;
             for(var t=from*step;t<=Math.min(to,end);t+=step){var d=document.createElement('div');d.className='tick';d.style.left=x(t)+'px';
              d.textContent=tickLabel(t,step);ruler.appendChild(d);}}
            // one unit along the ruler (the trace length's), with as many decimals as the tick step needs
            function tickLabel(t,step){var u=end>=1e6?[1e6,' s']:(end>=1e3?[1e3,' ms']:[1,' \u00b5s']);
             var dec=Math.min(9,Math.max(0,Math.ceil(-Math.log10(step/u[0])-1e-9)));return (t/u[0]).toFixed(dec)+u[1];}
            scroll.addEventListener('scroll',ticks);
            function render(){var w=Math.max(scroll.clientWidth,x(end)+20);canvas.style.width=w+'px';
             D.ops.forEach(function(o,i){var b=bars[i];b.style.left=x(o.ts)+'px';b.style.width=Math.max(1,x(o.dur))+'px';
              (o.members||[]).forEach(function(mb,k){var s=mbars[i][k];s.style.left=(x(mb.ts)-x(o.ts))+'px';
               s.style.width=Math.max(1,x(mb.dur))+'px';});
              if(dbars[i]){dbars[i].style.left=x(o.dts)+'px';dbars[i].style.width=Math.max(1,x(o.ddur))+'px';}});
             svg.setAttribute('width',w);svg.setAttribute('height',rows.length*LANE_H);
             ticks();arrows();}
            function zoom(f,cx){var at=(scroll.scrollLeft+cx)/scale;scale=Math.min(1e4,Math.max(1e-6,scale*f));render();
             scroll.scrollLeft=at*scale-cx;}
            scroll.addEventListener('wheel',function(e){e.preventDefault();var r=scroll.getBoundingClientRect();
             zoom(e.deltaY<0?1.25:0.8,e.clientX-r.left);},{passive:false});
            document.getElementById('zoom-in').onclick=function(){zoom(1.5,scroll.clientWidth/2);};
            document.getElementById('zoom-out').onclick=function(){zoom(1/1.5,scroll.clientWidth/2);};
            document.getElementById('zoom-fit').onclick=function(){fit();render();scroll.scrollLeft=0;};
            window.addEventListener('resize',function(){render();});
            // a link may pin an op: page.html#op=ID
            var wanted=/op=(\\d+)/.exec(location.hash);
            if(wanted){D.ops.forEach(function(o,i){if(String(o.id)===wanted[1]){pinned=i;detail.textContent=describe(o);}});}
            fit();render();
            if(pinned>=0){ // show the pinned op with its neighbours: zoom to their span, margins included
             var lo=Infinity, hi=0;
             links[pinned].concat([-1]).forEach(function(k){var f=k<0?[pinned,pinned]:D.flows[k];f.forEach(function(i){var o=D.ops[i];
              lo=Math.min(lo,o.ts);hi=Math.max(hi,o.ts+o.dur,o.dlane!==undefined?o.dts+o.ddur:0);});});
             var span=Math.max(hi-lo,1), margin=span*0.15;
             scale=Math.min(1e4,Math.max(1e-6,(scroll.clientWidth-20)/(span+2*margin)));render();
             scroll.scrollLeft=x(lo-margin);}
            document.getElementById('summary').textContent=D.shown+' of '+D.total+' ops shown over '+fmt(end)+', '+D.flows.length
             +' dependencies (arrows for the op under the pointer or clicked), '+D.incomplete+' incomplete ops, '
             +D.dropped+' records dropped';
            // statistics table, sortable by any column; a column empty (all zero) for the whole trace is left out
            function ms(ns){return ns/1e6;}
            var cols=[['Name',function(r){return r.name;}],['Count',function(r){return r.count;}],
             ['Total',function(r){return ms(r.run.totalNs);}],['Min',function(r){return ms(r.run.minNs);}],
             ['p50',function(r){return ms(r.p50Ns);}],['p99',function(r){return ms(r.p99Ns);}],
             ['Max',function(r){return ms(r.run.maxNs);}],['Avg',function(r){return r.run.avgMs;}],
             ['Wait total',function(r){return ms(r.wait.totalNs);}],['Wait avg',function(r){return r.wait.avgMs;}],
             ['Wait max',function(r){return ms(r.wait.maxNs);}],['Host total',function(r){return ms(r.host.totalNs);}],
             ['Device total',function(r){return ms(r.device.totalNs);}],['Device avg',function(r){return r.device.avgMs;}]];
            cols=cols.filter(function(c,i){return i<2||D.stats.some(function(r){return c[1](r)!==0;});});
            var sortCol=2, desc=true, thead=document.querySelector('#stats thead'), tbody=document.querySelector('#stats tbody');
            function table(){thead.textContent='';tbody.textContent='';var tr=document.createElement('tr');
             cols.forEach(function(c,i){var th=document.createElement('th');th.textContent=c[0]+(i===sortCol?(desc?' \u25BC':' \u25B2'):'');
              th.onclick=function(){if(sortCol===i){desc=!desc;}else{sortCol=i;desc=i!==0;}table();};tr.appendChild(th);});
             thead.appendChild(tr);var rs=D.stats.slice();var g=cols[Math.min(sortCol,cols.length-1)][1];
             rs.sort(function(a,b){var u=g(a),v=g(b);var c=u<v?-1:(u>v?1:0);return desc?-c:c;});
             rs.forEach(function(r){var tr=document.createElement('tr');tr.className='stat-row';cols.forEach(function(c,i){
              var td=document.createElement('td');var v=c[1](r);td.textContent=(i<2)?String(v):(v>=1||v===0?v.toFixed(3):v.toPrecision(3));tr.appendChild(td);});
              tbody.appendChild(tr);});}
            table();
            document.body.setAttribute('data-rendered','true');
            })();
            </script>
            """;
}
