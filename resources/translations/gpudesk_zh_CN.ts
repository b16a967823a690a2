<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AboutDialog</name>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="85"/>
        <source>About gpudesk and data sources</source>
        <translation>关于 gpudesk 和数据来源</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="89"/>
        <source>&amp;About</source>
        <translation>关于(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="90"/>
        <source>&amp;Data sources</source>
        <translation>数据来源(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="91"/>
        <source>&amp;Third-party notices</source>
        <translation>第三方声明(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="108"/>
        <source>Choose, monitor and debug GPUs for machine-learning work. Works offline.</source>
        <translation>为机器学习工作选择、监控和调试 GPU。可离线使用。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="111"/>
        <source>Licence: MIT License. Copyright (c) 2026 The gpudesk authors.</source>
        <translation>许可证：MIT 许可证。版权所有 (c) 2026 gpudesk 作者。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="113"/>
        <source>Python {0} on {1}; PySide6 {2}; Qt {3}</source>
        <translation>Python {0}（{1}）；PySide6 {2}；Qt {3}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="117"/>
        <source>User data folder: {0}</source>
        <translation>用户数据文件夹：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="126"/>
        <source>The catalog was not opened.</source>
        <translation>目录未打开。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="127"/>
        <source>The GPU catalog is not available: {0}</source>
        <translation>GPU 目录不可用：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="133"/>
        <source>Catalog data checked up to {0} (schema {1}): {2} GPUs, {3} servers, {4} links, {5} models. Throughput figures are dense (no sparsity) from vendor datasheets; each GPU names its source.</source>
        <translation>目录数据核对至 {0}（模式版本 {1}）：{2} 款 GPU、{3} 款服务器、{4} 种互连、{5} 个模型。吞吐量数据为厂商数据手册中的稠密值（不含稀疏加速）；每款 GPU 均注明来源。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="148"/>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="148"/>
        <location filename="../../gpudesk/ui/about.py" line="163"/>
        <source>Licence</source>
        <translation>许可证</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="148"/>
        <source>Used for</source>
        <translation>用途</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="148"/>
        <location filename="../../gpudesk/ui/about.py" line="163"/>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="148"/>
        <source>Checked</source>
        <translation>核对日期</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="151"/>
        <source>Double-click an address to open it in your browser</source>
        <translation>双击地址可在浏览器中打开</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="153"/>
        <source>Attribution (CC BY 4.0):</source>
        <translation>署名（CC BY 4.0）：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="163"/>
        <source>Component</source>
        <translation>组件</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="175"/>
        <source>The full notices file {0} could not be read: {1}</source>
        <translation>无法读取完整声明文件 {0}：{1}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/about.py" line="176"/>
        <source>Full notices ({0}):</source>
        <translation>完整声明（{0}）：</translation>
    </message>
</context>
<context>
    <name>AccountBar</name>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="54"/>
        <source>Memory account bar</source>
        <translation>显存账目条形图</translation>
    </message>
</context>
<context>
    <name>AccountView</name>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="96"/>
        <source>Allocated (live tensors)</source>
        <translation>已分配（活动张量）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="97"/>
        <source>Cached by the allocator</source>
        <translation>分配器缓存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="93"/>
        <source>This process outside PyTorch</source>
        <translation>本进程在 PyTorch 之外的占用</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="99"/>
        <source>Outside this process&apos;s allocator</source>
        <translation>本进程分配器之外的占用</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="100"/>
        <source>Other processes</source>
        <translation>其他进程</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="101"/>
        <source>Unattributed</source>
        <translation>未归属</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="102"/>
        <source>Free</source>
        <translation>空闲</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="106"/>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="106"/>
        <source>derived</source>
        <translation>推导</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="106"/>
        <source>given by you</source>
        <translation>由您提供</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="107"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="127"/>
        <source>engine %1</source>
        <translation>引擎 %1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="129"/>
        <source>runtime %1</source>
        <translation>运行时 %1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="131"/>
        <source>platform %1</source>
        <translation>平台 %1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="135"/>
        <source>OS %1 (given by you)</source>
        <translation>操作系统 %1（由您提供）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="135"/>
        <source>OS %1 (from the text)</source>
        <translation>操作系统 %1（从文本识别）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="137"/>
        <source>Recognised: %1</source>
        <translation>已识别：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="153"/>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="154"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="155"/>
        <source>MPS high-watermark limit</source>
        <translation>MPS 高水位限制</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="155"/>
        <source>total capacity</source>
        <translation>总容量</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="156"/>
        <source>Memory account of %1: %2 %3 (%4)</source>
        <translation>%1 的显存账目：%2 %3（%4）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/account_view.py" line="177"/>
        <source>%1: %2%3, %4 — %5</source>
        <translation>%1：%2%3，%4 — %5</translation>
    </message>
</context>
<context>
    <name>AccuracyDialog</name>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="376"/>
        <source>How accurate is this estimate?</source>
        <extracomment>The column of the source URL in the accuracy table (the last). Columns of the speed table: set, class, runs, within 20 %, within 50 %, median error, geometric mean, misses.</extracomment>
        <translation>这个估算有多准确？</translation>
    </message>
</context>
<context>
    <name>AccuracyLink</name>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="454"/>
        <source>How accurate is this?</source>
        <translation>准确度如何？</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="457"/>
        <source>Compare the memory and speed estimators with published measured runs</source>
        <translation>将显存与速度估算器和公开的实测运行对比</translation>
    </message>
</context>
<context>
    <name>AlertDeliveryDialog</name>
    <message>
        <location filename="../../gpudesk/ui/alert_settings_dialog.py" line="26"/>
        <source>Alert delivery</source>
        <translation>告警投递</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/alert_settings_dialog.py" line="27"/>
        <source>Alerts always appear on the desktop. They can also run a command (no shell; the alert is in GPUDESK_ALERT_* variables) and be posted as JSON to a webhook URL. Nothing is sent over the network unless you enter a URL.</source>
        <translation>告警总会显示在桌面上。也可以运行一条命令（不经 shell；告警内容在 GPUDESK_ALERT_* 变量中），并以 JSON 形式发送到 webhook URL。除非你输入 URL，否则不会通过网络发送任何内容。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/alert_settings_dialog.py" line="33"/>
        <source>e.g. notify-send gpudesk</source>
        <translation>例如 notify-send gpudesk</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/alert_settings_dialog.py" line="36"/>
        <source>https://hooks.example.com/…</source>
        <translation>https://hooks.example.com/…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/alert_settings_dialog.py" line="42"/>
        <source>&amp;Command:</source>
        <translation>命令(&amp;C)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/alert_settings_dialog.py" line="43"/>
        <source>&amp;Webhook URL:</source>
        <translation>Webhook URL(&amp;W)：</translation>
    </message>
</context>
<context>
    <name>AlertTray</name>
    <message>
        <location filename="../../gpudesk/ui/alert_tray.py" line="115"/>
        <source>gpudesk: watching the GPUs for alerts</source>
        <translation>gpudesk：正在监视 GPU 告警</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/alert_tray.py" line="117"/>
        <source>Show gpudesk</source>
        <translation>显示 gpudesk</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/alert_tray.py" line="119"/>
        <source>Quit gpudesk</source>
        <translation>退出 gpudesk</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/alert_tray.py" line="148"/>
        <source>gpudesk: GPU alert (critical)</source>
        <translation>gpudesk：GPU 告警（严重）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/alert_tray.py" line="150"/>
        <source>gpudesk: GPU alert</source>
        <translation>gpudesk：GPU 告警</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/alert_tray.py" line="151"/>
        <source>gpudesk</source>
        <translation>gpudesk</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/alert_tray.py" line="169"/>
        <source>Alerts stopped: {0}</source>
        <translation>告警已停止：{0}</translation>
    </message>
</context>
<context>
    <name>BurnInDialog</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_window.py" line="22"/>
        <source>Burn-in report</source>
        <translation>拷机测试报告</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_window.py" line="23"/>
        <source>Recording #{n}: {t}</source>
        <translation>录制 #{n}：{t}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_window.py" line="27"/>
        <source>No plan (judge the recording alone)</source>
        <translation>不对照方案（仅评判录制本身）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_window.py" line="34"/>
        <source>Plan #{n}: {name}</source>
        <translation>方案 #{n}：{name}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_window.py" line="36"/>
        <source>{plan} (cannot be compared: {why})</source>
        <translation>{plan}（无法对照：{why}）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_window.py" line="42"/>
        <source>The saved plan whose expectations (memory, throughput, power) the measurements are compared with</source>
        <translation>与测量值对照的已保存方案（其显存、吞吐量、功耗预期）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_window.py" line="45"/>
        <source>Recording:</source>
        <translation>录制：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_window.py" line="46"/>
        <source>Saved &amp;plan:</source>
        <translation>已保存的方案(&amp;P)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_window.py" line="60"/>
        <source>its stored plan cannot be read</source>
        <translation>其保存的方案无法读取</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_window.py" line="63"/>
        <source>no configuration fitted when it was made</source>
        <translation>生成时没有配置满足要求</translation>
    </message>
</context>
<context>
    <name>BurnInReportView</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="123"/>
        <source>Export &amp;PDF…</source>
        <translation>导出 PDF(&amp;P)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="123"/>
        <source>Export &amp;HTML…</source>
        <translation>导出 HTML(&amp;H)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="124"/>
        <source>Export &amp;Markdown…</source>
        <translation>导出 Markdown(&amp;M)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="144"/>
        <source>Per-GPU statistics</source>
        <translation>各 GPU 统计</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="145"/>
        <source>Plan against measurement</source>
        <translation>规划与实测对照</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="146"/>
        <source>Post-delivery checks</source>
        <translation>交付后检查</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="162"/>
        <source>Plan: {plan}, configuration {label}.</source>
        <translation>规划：{plan}，配置 {label}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="164"/>
        <source>No plan attached: the report judges the recording alone.</source>
        <translation>未关联规划：报告仅依据录制数据作出判断。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="165"/>
        <source>Source: {source}. {plan}</source>
        <translation>来源：{source}。{plan}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="168"/>
        <source>N/A</source>
        <translation>不可用</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="175"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="175"/>
        <source>Model</source>
        <translation>型号</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="175"/>
        <source>Utilization (median, %)</source>
        <translation>利用率（中位数，%）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="175"/>
        <source>Busy share (%)</source>
        <translation>忙碌占比（%）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="176"/>
        <source>Memory used, peak (GiB)</source>
        <translation>显存使用峰值（GiB）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="176"/>
        <source>Memory total (GiB)</source>
        <translation>显存总量（GiB）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="176"/>
        <source>Power, median (W)</source>
        <translation>功耗，中位数（W）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="177"/>
        <source>Temperature, max (°C)</source>
        <translation>温度，最高（°C）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="177"/>
        <source>SM clock, median (MHz)</source>
        <translation>SM 时钟频率，中位数（MHz）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="178"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="183"/>
        <source>Item</source>
        <translation>项目</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="183"/>
        <source>Expected (plan)</source>
        <translation>预期（规划）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="183"/>
        <source>Measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="183"/>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="188"/>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="183"/>
        <source>Note</source>
        <translation>备注</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="188"/>
        <source>Check</source>
        <translation>检查项</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="188"/>
        <source>Expected</source>
        <translation>预期</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="188"/>
        <source>Evidence</source>
        <translation>证据</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="201"/>
        <source>PDF (*.pdf)</source>
        <translation>PDF (*.pdf)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="201"/>
        <source>HTML (*.html)</source>
        <translation>HTML (*.html)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="201"/>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="202"/>
        <source>Export the burn-in report</source>
        <translation>导出拷机测试（burn-in）报告</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="212"/>
        <source>Exporting {name}…</source>
        <translation>正在导出 {name}…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_view.py" line="218"/>
        <source>Saved {name}.</source>
        <translation>已保存 {name}。</translation>
    </message>
</context>
<context>
    <name>BurnInWindow</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/burnin_window.py" line="78"/>
        <source>Burn-in report: {t}</source>
        <translation>拷机测试报告：{t}</translation>
    </message>
</context>
<context>
    <name>CatalogFields</name>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="43"/>
        <source>Bandwidth</source>
        <translation>带宽</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="44"/>
        <source>BF16</source>
        <translation>BF16</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="45"/>
        <source>FP8</source>
        <translation>FP8</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="46"/>
        <source>INT8</source>
        <translation>INT8</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="47"/>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="76"/>
        <source>FP32</source>
        <translation>FP32</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="48"/>
        <source>NVLink</source>
        <translation>NVLink</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="49"/>
        <source>MIG</source>
        <translation>MIG</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="50"/>
        <source>Year</source>
        <translation>年份</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="51"/>
        <source>Arch.</source>
        <translation>架构</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="52"/>
        <source>Form</source>
        <translation>形态</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="53"/>
        <source>Cloud</source>
        <translation>云租用</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="54"/>
        <source>Market</source>
        <translation>市场</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="62"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="63"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="64"/>
        <source>Id</source>
        <translation>标识</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="65"/>
        <source>Vendor</source>
        <translation>厂商</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="66"/>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="67"/>
        <source>Chip</source>
        <translation>芯片</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="68"/>
        <source>Compute capability</source>
        <translation>计算能力</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="69"/>
        <source>not an NVIDIA GPU</source>
        <translation>非 NVIDIA GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="70"/>
        <source>Memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="71"/>
        <source>Memory type</source>
        <translation>显存类型</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="72"/>
        <source>Memory bandwidth</source>
        <translation>显存带宽</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="73"/>
        <source>Devices per package (each die its own device)</source>
        <translation>每封装设备数（每个裸片为独立设备）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="74"/>
        <source>Smallest purchase (GPUs)</source>
        <translation>最小购买量（GPU 块数）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="75"/>
        <source>no catalog server takes it</source>
        <translation>目录中没有能装它的服务器</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="77"/>
        <source>TF32 dense</source>
        <translation>TF32 稠密</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="78"/>
        <source>no TF32 tensor cores</source>
        <translation>无 TF32 张量核心</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="79"/>
        <source>FP16 dense</source>
        <translation>FP16 稠密</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="80"/>
        <source>no FP16 tensor cores</source>
        <translation>无 FP16 张量核心</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="81"/>
        <source>BF16 dense</source>
        <translation>BF16 稠密</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="82"/>
        <source>no BF16 support</source>
        <translation>不支持 BF16</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="83"/>
        <source>FP8 dense</source>
        <translation>FP8 稠密</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="84"/>
        <source>no FP8 support</source>
        <translation>不支持 FP8</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="85"/>
        <source>INT8 dense</source>
        <translation>INT8 稠密</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="86"/>
        <source>no INT8 tensor cores</source>
        <translation>无 INT8 张量核心</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="87"/>
        <source>FP4 dense</source>
        <translation>FP4 稠密</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="88"/>
        <source>no FP4 support</source>
        <translation>不支持 FP4</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="89"/>
        <source>unknown: not published for this GPU</source>
        <translation>未知：此 GPU 未公布该值</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="90"/>
        <source>Tensor rate basis</source>
        <translation>张量算力口径</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="91"/>
        <source>Measured matmul efficiency</source>
        <translation>实测矩阵乘效率</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="92"/>
        <source>no public measurement</source>
        <translation>无公开测量</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="93"/>
        <source>TDP</source>
        <translation>TDP</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="94"/>
        <source>Form factor</source>
        <translation>形态</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="95"/>
        <source>Host interface</source>
        <translation>主机接口</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="96"/>
        <source>NVLink / fabric (bidirectional)</source>
        <translation>NVLink / 互连（双向）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="97"/>
        <source>none (PCIe only)</source>
        <translation>无（仅 PCIe）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="98"/>
        <source>MIG max instances</source>
        <translation>MIG 最大实例数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="99"/>
        <source>ECC</source>
        <translation>ECC</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="100"/>
        <source>vGPU / SR-IOV</source>
        <translation>vGPU / SR-IOV</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="101"/>
        <source>Consumer (GeForce)</source>
        <translation>消费级（GeForce）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="102"/>
        <source>Launch year</source>
        <translation>发布年份</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="103"/>
        <source>Price</source>
        <translation>价格</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="104"/>
        <source>no dated public price</source>
        <translation>无注明日期的公开价格</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="105"/>
        <source>Price date</source>
        <translation>价格日期</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="106"/>
        <source>Price source</source>
        <translation>价格来源</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="107"/>
        <source>Price kind</source>
        <translation>价格类型</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="108"/>
        <source>Cloud rate (on demand)</source>
        <translation>云租用价（按需）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="109"/>
        <source>no sourced cloud rate</source>
        <translation>无有来源的云租用价</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="110"/>
        <source>Cloud rate source</source>
        <translation>云租用价来源</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="111"/>
        <source>Made for market</source>
        <translation>面向市场</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="112"/>
        <source>sold worldwide</source>
        <translation>全球销售</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="113"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="114"/>
        <source>Confidence</source>
        <translation>可信度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="115"/>
        <source>Date checked</source>
        <translation>核对日期</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="116"/>
        <source>Spec source</source>
        <translation>规格来源</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="117"/>
        <source>Notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="143"/>
        <source>N/A ({0})</source>
        <translation>不可用（{0}）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="145"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="145"/>
        <source>no</source>
        <translation>否</translation>
    </message>
</context>
<context>
    <name>CatalogTab</name>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="44"/>
        <source>Catalog</source>
        <translation>目录</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="100"/>
        <source>the user database could not be opened (see the message above).</source>
        <translation>无法打开用户数据库（见上方消息）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="116"/>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="117"/>
        <source>Prices, rent vs buy</source>
        <translation>价格、租用还是购买</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="118"/>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="119"/>
        <source>Chart</source>
        <translation>图表</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="127"/>
        <source>C&amp;ompare selected</source>
        <translation>比较所选(&amp;O)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="129"/>
        <source>Put the selected GPUs (up to {0}) side by side (Ctrl+D)</source>
        <translation>将所选 GPU（最多 {0} 款）并排比较（Ctrl+D）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="131"/>
        <source>&amp;Export CSV…</source>
        <translation>导出 CSV(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="132"/>
        <source>Save the GPUs in the current view, in view order, as CSV (Ctrl+E)</source>
        <translation>按当前视图顺序将视图中的 GPU 保存为 CSV（Ctrl+E）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="133"/>
        <source>&amp;Reset filters</source>
        <translation>重置筛选(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="134"/>
        <source>Show every GPU again</source>
        <translation>重新显示所有 GPU</translation>
    </message>
    <message numerus="yes">
        <location filename="../../gpudesk/ui/catalog/tab.py" line="260"/>
        <source>Exported %n GPU(s) to {0}. &quot;unknown&quot;: a rate the GPU has that was not published; empty: the GPU does not have it.</source>
        <translation>
            <numerusform>已将 %n 个 GPU 导出到 {0}。&quot;unknown&quot;：该 GPU 具备但未公布的速率；空白：该 GPU 不具备此项。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="296"/>
        <source>The GPU catalog could not be opened, so there is nothing to browse.

{0}

Reinstall gpudesk, or in a source checkout run `make catalog`, then restart gpudesk.</source>
        <extracomment>The name column&apos;s widest (pixels): most names fit whole; longer ones keep both ends (ElideMiddle).</extracomment>
        <translation>无法打开 GPU 目录，因此没有可浏览的内容。

{0}

请重新安装 gpudesk，或在源码目录中运行 `make catalog`，然后重启 gpudesk。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="300"/>
        <source>No catalog was given.</source>
        <translation>未提供目录。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="202"/>
        <source>Select one or more GPUs in the table first (Ctrl+click for several).</source>
        <translation>请先在表格中选择一款或多款 GPU（按住 Ctrl 单击可多选）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="206"/>
        <source>{0} GPUs selected; the comparison takes the first {1}.</source>
        <translation>已选择 {0} 款 GPU；比较取前 {1} 款。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="215"/>
        <source>{0} of {1} GPUs shown</source>
        <translation>显示 {0} / {1} 款 GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/controller.py" line="56"/>
        <source>Your saved prices could not be read: {0}</source>
        <translation>无法读取您保存的价格：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/controller.py" line="69"/>
        <source>The prices of {0} could not be read: {1}</source>
        <translation>无法读取 {0} 的价格：{1}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/controller.py" line="88"/>
        <source>Price overrides are unavailable because the user database is not open.</source>
        <translation>用户数据库未打开，无法使用自定义价格。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/controller.py" line="94"/>
        <source>The price was not saved: {0}</source>
        <translation>价格未保存：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/controller.py" line="96"/>
        <source>your price {0:,.0f} USD for {1}</source>
        <translation>您为 {1} 设置的价格 {0:,.0f} USD</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/controller.py" line="98"/>
        <source>Saved your price for {0}: {1:,.0f} USD.</source>
        <translation>已保存您为 {0} 设置的价格：{1:,.0f} USD。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/controller.py" line="109"/>
        <source>Your price was not removed: {0}</source>
        <translation>您的价格未删除：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/controller.py" line="112"/>
        <source>catalog price again for {0}</source>
        <translation>{0} 恢复使用目录价格</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/controller.py" line="114"/>
        <source>{0} uses the catalog price again.</source>
        <translation>{0} 已恢复使用目录价格。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/controller.py" line="128"/>
        <source>The price change could not be undone: {0}</source>
        <translation>无法撤销价格更改：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/controller.py" line="135"/>
        <source>Undone: {0} uses the catalog price again.</source>
        <translation>已撤销：{0} 恢复使用目录价格。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/controller.py" line="137"/>
        <source>Undone: your price for {0} is {1:,.0f} USD again.</source>
        <translation>已撤销：您为 {0} 设置的价格恢复为 {1:,.0f} USD。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="252"/>
        <source>Export GPUs as CSV</source>
        <translation>将 GPU 导出为 CSV</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/tab.py" line="252"/>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
</context>
<context>
    <name>CauseCard</name>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="179"/>
        <source>Cause id: %1</source>
        <translation>原因编号：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="191"/>
        <source>How strongly the evidence supports this cause</source>
        <translation>证据对这一原因的支持程度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="193"/>
        <source>confidence %1 %</source>
        <translation>置信度 %1 %</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="204"/>
        <source>Evidence</source>
        <translation>证据</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="210"/>
        <source>Fix: %1</source>
        <translation>修复：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="221"/>
        <source>Copy fix</source>
        <translation>复制修复</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="222"/>
        <source>Copy the fix to the clipboard</source>
        <translation>将修复方法复制到剪贴板</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="226"/>
        <source>Further fixes</source>
        <translation>更多修复</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="230"/>
        <source>Also check</source>
        <translation>另请检查</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="234"/>
        <source>Effect of sizing fixes</source>
        <translation>调整规模类修复的效果</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="237"/>
        <source>saves %1</source>
        <translation>节省 %1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="242"/>
        <source>• %1: %2</source>
        <translation>• %1：%2</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="244"/>
        <source>Copy cause</source>
        <translation>复制原因</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="245"/>
        <source>Copy this cause with its evidence and fix as text</source>
        <translation>将此原因连同证据和修复以文本形式复制</translation>
    </message>
</context>
<context>
    <name>ChartView</name>
    <message>
        <location filename="../../gpudesk/ui/catalog/chart_view.py" line="60"/>
        <source>Value on the horizontal axis</source>
        <translation>横轴上的数值</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/chart_view.py" line="61"/>
        <source>Value on the vertical axis</source>
        <translation>纵轴上的数值</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/chart_view.py" line="62"/>
        <source>Lo&amp;garithmic axes</source>
        <translation>对数坐标轴(&amp;G)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/chart_view.py" line="63"/>
        <source>Spread out the smaller GPUs when values span orders of magnitude</source>
        <translation>数值跨越多个数量级时，展开较小的 GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/chart_view.py" line="66"/>
        <source>&amp;X axis:</source>
        <translation>&amp;X 轴：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/chart_view.py" line="68"/>
        <source>&amp;Y axis:</source>
        <translation>&amp;Y 轴：</translation>
    </message>
    <message numerus="yes">
        <location filename="../../gpudesk/ui/catalog/chart_view.py" line="172"/>
        <source>%n GPU(s) plotted; click a point to select it.</source>
        <translation>
            <numerusform>已绘制 %n 款 GPU；单击某点可选中它。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/chart_view.py" line="174"/>
        <source>Not plotted (no value on an axis): {0}.</source>
        <translation>未绘制（某一轴上无数值）：{0}。</translation>
    </message>
</context>
<context>
    <name>CjkFont</name>
    <message>
        <location filename="../../gpudesk/ui/cjk_font.py" line="43"/>
        <source>No font with Chinese characters is installed, so Chinese text shows as empty boxes. Install one (Debian/Ubuntu: sudo apt install fonts-noto-cjk; Fedora: google-noto-sans-cjk-fonts) and restart gpudesk.</source>
        <extracomment>Preferred families, best first (sans-serif faces designed for Simplified Chinese screens and print). CJK Unified Ideographs (and Extension A), CJK punctuation and full-width forms.</extracomment>
        <translation>未安装含中文字符的字体，中文会显示为空白方框。请安装一种（Debian/Ubuntu：sudo apt install fonts-noto-cjk；Fedora：google-noto-sans-cjk-fonts）后重启 gpudesk。</translation>
    </message>
</context>
<context>
    <name>CompareView</name>
    <message>
        <location filename="../../gpudesk/ui/catalog/compare_view.py" line="56"/>
        <source>Remo&amp;ve column</source>
        <translation>移除列(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/compare_view.py" line="57"/>
        <source>Remove the GPU whose column is selected</source>
        <translation>移除所选列对应的 GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/compare_view.py" line="59"/>
        <source>Clear compar&amp;ison</source>
        <translation>清除对比(&amp;I)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/compare_view.py" line="154"/>
        <source>N/A</source>
        <translation>不可用</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/compare_view.py" line="154"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/compare_view.py" line="161"/>
        <source>Differs between the compared GPUs</source>
        <translation>所比较的 GPU 之间存在差异</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/compare_view.py" line="168"/>
        <source>Select up to {0} GPUs in the table and press Compare (Ctrl+D). Differences are highlighted.</source>
        <translation>在表格中选择最多 {0} 款 GPU，然后按“比较”（Ctrl+D）。差异项会高亮显示。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../gpudesk/ui/catalog/compare_view.py" line="172"/>
        <source>{0} of {1} GPUs; %n spec(s) differ (highlighted).</source>
        <translation>
            <numerusform>{0}/{1} 款 GPU；%n 项规格不同（已高亮）。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="35"/>
        <source>Compare two plans</source>
        <translation>比较两个规划</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="45"/>
        <source>&lt; &amp;Back to saved plans</source>
        <translation>&lt; 返回已保存的规划(&amp;B)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="60"/>
        <source>Plan</source>
        <translation>规划</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="64"/>
        <source>Workload kind</source>
        <translation>工作负载类型</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="65"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="66"/>
        <source>Top candidate</source>
        <translation>首选候选方案</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="70"/>
        <source>Interconnect</source>
        <translation>互连</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="71"/>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="72"/>
        <source>Memory per GPU</source>
        <translation>每 GPU 显存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="73"/>
        <source>Safe line</source>
        <translation>安全线</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="74"/>
        <source>Headroom to the safe line</source>
        <translation>距安全线的余量</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="76"/>
        <source>TPOT (time per output token)</source>
        <translation>TPOT（每个输出 token 的时间）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="78"/>
        <source>Step time</source>
        <translation>单步时间</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="79"/>
        <source>Time to result</source>
        <translation>出结果时间</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="80"/>
        <source>Meets the deadline</source>
        <translation>满足截止时间</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="62"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="62"/>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="81"/>
        <source>Sustained QPS</source>
        <translation>可持续 QPS</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="82"/>
        <source>3-year TCO</source>
        <translation>3 年 TCO</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="82"/>
        <source>price unknown</source>
        <translation>价格未知</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="85"/>
        <source>GPU price used</source>
        <translation>所用 GPU 价格</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="89"/>
        <source>  TCO: {0}</source>
        <translation>  TCO：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="90"/>
        <source>Candidates found</source>
        <translation>找到的候选方案</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="91"/>
        <source>Warnings on the top candidate</source>
        <translation>首选候选方案的警告</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="92"/>
        <source>Updated (UTC)</source>
        <translation>更新时间（UTC）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="96"/>
        <source>Figure</source>
        <translation>指标</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="107"/>
        <source>Updated</source>
        <translation>更新时间</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/compare.py" line="114"/>
        <source>Compare: {0} | {1}</source>
        <translation>比较：{0} | {1}</translation>
    </message>
</context>
<context>
    <name>ContextInputs</name>
    <message>
        <location filename="../../gpudesk/ui/oom/context_inputs.py" line="30"/>
        <source>Linux</source>
        <translation>Linux</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/context_inputs.py" line="30"/>
        <source>Windows (native)</source>
        <translation>Windows（原生）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/context_inputs.py" line="30"/>
        <source>WSL2 on Windows</source>
        <translation>Windows 上的 WSL2</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/context_inputs.py" line="31"/>
        <source>macOS</source>
        <translation>macOS</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/context_inputs.py" line="32"/>
        <source>Detect from the text</source>
        <translation>从文本中识别</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/context_inputs.py" line="36"/>
        <source>The operating system the job ran on. A bare &quot;CUDA error: out of memory&quot; has different causes on WSL2 (pinned host memory) and native Windows (the page file) than on Linux; by default it is read from the text&apos;s paths and words.</source>
        <translation>任务运行所在的操作系统。单独一行 &quot;CUDA error: out of memory&quot; 在 WSL2（锁页主机内存）和原生 Windows（页面文件）上的原因与 Linux 上不同；默认从文本中的路径和用词识别。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/context_inputs.py" line="39"/>
        <source>The &amp;job&apos;s operating system:</source>
        <translation>任务的操作系统(&amp;J)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/context_inputs.py" line="46"/>
        <source>not given</source>
        <translation>未提供</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/context_inputs.py" line="49"/>
        <source>GPU memory other processes held when the error happened, in GiB (the sum of the other rows of nvidia-smi&apos;s process list). A pasted message rarely shows it; 0 = not given. It is shown as given by you in the memory account.</source>
        <translation>出错时其他进程占用的 GPU 显存，单位 GiB（nvidia-smi 进程列表中其他各行之和）。粘贴的报错信息很少包含它；0 表示未提供。它在显存账目中显示为“由您提供”。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/context_inputs.py" line="52"/>
        <source>Memory held &amp;by other processes (GiB):</source>
        <translation>其他进程占用的显存(&amp;B)（GiB）：</translation>
    </message>
</context>
<context>
    <name>CostTimeScatter</name>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="186"/>
        <source>Time to result (days)</source>
        <translation>出结果时间（天）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="187"/>
        <source>3-year TCO (thousand USD)</source>
        <translation>3 年 TCO（千美元）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="194"/>
        <source>Meets the deadline</source>
        <translation>满足截止时间</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="195"/>
        <source>Misses the deadline</source>
        <translation>未满足截止时间</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="196"/>
        <source>No deadline given</source>
        <translation>未设截止时间</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="211"/>
        <source>Deadline</source>
        <translation>截止时间</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="220"/>
        <source>Dashed line: the deadline ({0:.1f} days).</source>
        <translation>虚线：截止时间（{0:.1f} 天）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="224"/>
        <source>No candidate has both a time to result and a 3-year TCO (inference plans are sized by QPS, not by time; a missing price leaves the TCO unknown).</source>
        <translation>没有候选方案同时具备出结果时间和 3 年 TCO（推理规划按 QPS 而非时间确定规模；缺少价格时 TCO 未知）。</translation>
    </message>
</context>
<context>
    <name>ErrorReport</name>
    <message>
        <location filename="../../gpudesk/ui/error_report.py" line="37"/>
        <source>Something went wrong and the last action stopped: {0}</source>
        <translation>出现错误，上一个操作已停止：{0}</translation>
    </message>
</context>
<context>
    <name>EstimatorAccuracyView</name>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="54"/>
        <source>Checking the estimator against published measurements…</source>
        <translation>正在用公开发表的实测数据检验估算器…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="68"/>
        <source>Published case</source>
        <translation>公开案例</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="68"/>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="68"/>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="68"/>
        <source>Statistic</source>
        <translation>统计量</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="69"/>
        <source>Measured (GiB)</source>
        <translation>实测（GiB）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="69"/>
        <source>Estimate (GiB)</source>
        <translation>估算（GiB）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="69"/>
        <source>Estimate / measured</source>
        <translation>估算 / 实测</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="69"/>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="80"/>
        <source>Estimator accuracy by published case</source>
        <translation>按公开案例列出的估算器准确度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="81"/>
        <source>Checking the speed model against published measured runs…</source>
        <translation>正在用公开的实测运行检查速度模型…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="89"/>
        <source>Speed check progress</source>
        <translation>速度检查进度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="93"/>
        <source>Set</source>
        <translation>数据集</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="93"/>
        <source>Class</source>
        <translation>类别</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="93"/>
        <source>Runs</source>
        <translation>运行数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="93"/>
        <source>Within 20 %</source>
        <translation>20 % 以内</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="93"/>
        <source>Within 50 %</source>
        <translation>50 % 以内</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="94"/>
        <source>Median error</source>
        <translation>中位误差</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="94"/>
        <source>Predicted / measured (geometric mean)</source>
        <translation>预测 / 实测（几何平均）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="94"/>
        <source>Misses</source>
        <translation>偏差较大</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="100"/>
        <source>Speed model accuracy by class</source>
        <translation>按类别的速度模型准确度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="114"/>
        <source>The speed check could not run: %1</source>
        <translation>速度检查无法运行：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="127"/>
        <source>Checking the speed model: set %1 of %2</source>
        <translation>正在检查速度模型：第 %1 组，共 %2 组</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="140"/>
        <source>Shown, but not kept for next time: %1</source>
        <translation>已显示，但未保存以供下次使用：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="154"/>
        <source>training</source>
        <translation>训练</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="154"/>
        <source>serving</source>
        <translation>推理服务</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="156"/>
        <source>%1: within 20 % on %2 of %3 published runs, %4 misses (more than 50 % off or not answered)</source>
        <translation>%1：%3 个公开运行中 %2 个在 20 % 以内，%4 个偏差较大（偏差超过 50 % 或无法回答）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="161"/>
        <source>Speed model: %1.</source>
        <translation>速度模型：%1。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="163"/>
        <source>No published measured run answered yet: treat speeds as unvalidated.</source>
        <translation>尚无可回答的公开实测运行：速度估算视为未经验证。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="165"/>
        <source>development</source>
        <translation>开发集</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="165"/>
        <source>later (collected after the model)</source>
        <translation>后续集（在模型之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="166"/>
        <source>fresh (collected after the model was frozen)</source>
        <translation>新集（在模型冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="167"/>
        <source>second fresh (collected after the model was frozen again)</source>
        <translation>第二个新集（在模型再次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="168"/>
        <source>third fresh (collected after the model was frozen a third time)</source>
        <translation>第三个新集（在模型第三次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="169"/>
        <source>fourth fresh (collected after the model was frozen a fourth time)</source>
        <translation>第四个新集（在模型第四次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="170"/>
        <source>fifth fresh (collected after the model was frozen a fifth time)</source>
        <translation>第五个新集（在模型第五次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="171"/>
        <source>sixth fresh (collected after the model was frozen a sixth time)</source>
        <translation>第六个新集（在模型第六次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="172"/>
        <source>seventh fresh (collected after the model was frozen a seventh time)</source>
        <translation>第七个新集（在模型第七次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="173"/>
        <source>eighth fresh (collected after the model was frozen an eighth time)</source>
        <translation>第八个新集（在模型第八次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="174"/>
        <source>ninth fresh (collected after the model was frozen a ninth time)</source>
        <translation>第九个新集（在模型第九次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="175"/>
        <source>tenth fresh (collected after the model was frozen a tenth time)</source>
        <translation>第十个新集（在模型第十次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="176"/>
        <source>eleventh fresh (collected after the model was frozen an eleventh time)</source>
        <translation>第十一个新集（在模型第十一次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="177"/>
        <source>twelfth fresh (collected after the model was frozen a twelfth time)</source>
        <translation>第十二个新集（在模型第十二次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="178"/>
        <source>thirteenth fresh (collected after the model was frozen a thirteenth time)</source>
        <translation>第十三个新集（在模型第十三次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="179"/>
        <source>fourteenth fresh (collected after the model was frozen a fourteenth time)</source>
        <translation>第十四个新集（在模型第十四次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="180"/>
        <source>fifteenth fresh (collected after the model was frozen a fifteenth time)</source>
        <translation>第十五个新集（在模型第十五次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="181"/>
        <source>sixteenth fresh (collected after the model was frozen a sixteenth time)</source>
        <translation>第十六个新集（在模型第十六次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="182"/>
        <source>seventeenth fresh (collected after the model was frozen a seventeenth time)</source>
        <translation>第十七个新集（在模型第十七次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="183"/>
        <source>eighteenth fresh (collected after the model was frozen an eighteenth time)</source>
        <translation>第十八个新集（在模型第十八次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="184"/>
        <source>nineteenth fresh (collected after the model was frozen a nineteenth time)</source>
        <translation>第十九个新集（在模型第十九次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="185"/>
        <source>twentieth fresh (collected after the model was frozen a twentieth time)</source>
        <translation>第二十个新集（在模型第二十次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="186"/>
        <source>twenty-first fresh (collected after the model was frozen a twenty-first time)</source>
        <translation>第二十一个新集（在模型第二十一次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="187"/>
        <source>twenty-second fresh (collected after the model was frozen a twenty-second time)</source>
        <translation>第二十二个新集（在模型第二十二次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="188"/>
        <source>twenty-third fresh (collected after the model was frozen a twenty-third time)</source>
        <translation>第二十三个新集（在模型第二十三次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="189"/>
        <source>twenty-fourth fresh (collected after the model was frozen a twenty-fourth time)</source>
        <translation>第二十四个新集（在模型第二十四次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="190"/>
        <source>twenty-fifth fresh (collected after the model was frozen a twenty-fifth time)</source>
        <translation>第二十五个新集（在模型第二十五次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="191"/>
        <source>twenty-sixth fresh (collected after the model was frozen a twenty-sixth time)</source>
        <translation>第二十六个新集（在模型第二十六次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="192"/>
        <source>twenty-seventh fresh (collected after the model was frozen a twenty-seventh time)</source>
        <translation>第二十七个新集（在模型第二十七次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="193"/>
        <source>twenty-eighth fresh (collected after the model was frozen a twenty-eighth time)</source>
        <translation>第二十八个新集（在模型第二十八次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="194"/>
        <source>twenty-ninth fresh (collected after the model was frozen a twenty-ninth time)</source>
        <translation>第二十九个新集（在模型第二十九次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="195"/>
        <source>thirtieth fresh (collected after the model was frozen a thirtieth time)</source>
        <translation>第三十个新集（在模型第三十次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="196"/>
        <source>thirty-first fresh (collected after the model was frozen a thirty-first time)</source>
        <translation>第三十一个新集（在模型第三十一次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="197"/>
        <source>thirty-second fresh (collected after the model was frozen a thirty-second time)</source>
        <translation>第三十二个新集（在模型第三十二次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="198"/>
        <source>thirty-third fresh (collected after the model was frozen a thirty-third time)</source>
        <translation>第三十三个新集（在模型第三十三次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="199"/>
        <source>thirty-fourth fresh (collected after the model was frozen a thirty-fourth time)</source>
        <translation>第三十四个新集（在模型第三十四次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="200"/>
        <source>thirty-fifth fresh (collected after the model was frozen a thirty-fifth time)</source>
        <translation>第三十五个新集（在模型第三十五次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="201"/>
        <source>thirty-sixth fresh (collected after the model was frozen a thirty-sixth time)</source>
        <translation>第三十六个新集（在模型第三十六次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="202"/>
        <source>thirty-seventh fresh (collected after the model was frozen a thirty-seventh time)</source>
        <translation>第三十七个新集（在模型第三十七次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="203"/>
        <source>thirty-eighth fresh (collected after the model was frozen a thirty-eighth time)</source>
        <translation>第三十八个新集（在模型第三十八次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="204"/>
        <source>thirty-ninth fresh (collected after the model was frozen a thirty-ninth time)</source>
        <translation>第三十九个新集（在模型第三十九次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="205"/>
        <source>fortieth fresh (collected after the model was frozen a fortieth time)</source>
        <translation>第四十个新集（在模型第四十次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="206"/>
        <source>forty-first fresh (collected after the model was frozen a forty-first time)</source>
        <translation>第四十一个新集（在模型第四十一次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="207"/>
        <source>forty-second fresh (collected after the model was frozen a forty-second time)</source>
        <translation>第四十二个新集（在模型第四十二次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="208"/>
        <source>forty-third fresh (collected after the model was frozen a forty-third time)</source>
        <translation>第四十三个新集（在模型第四十三次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="209"/>
        <source>forty-fourth fresh (collected after the model was frozen a forty-fourth time)</source>
        <translation>第四十四个新集（在模型第四十四次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="210"/>
        <source>forty-fifth fresh (collected after the model was frozen a forty-fifth time)</source>
        <translation>第四十五个新集（在模型第四十五次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="211"/>
        <source>forty-sixth fresh (collected after the model was frozen a forty-sixth time)</source>
        <translation>第四十六个新集（在模型第四十六次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="212"/>
        <source>forty-seventh fresh (collected after the model was frozen a forty-seventh time)</source>
        <translation>第四十七个新集（在模型第四十七次冻结之后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="213"/>
        <source>forty-eighth fresh (collected after the model was frozen a forty-eighth time)</source>
        <translation>第四十八批新数据（模型第四十八次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="214"/>
        <source>forty-ninth fresh (collected after the model was frozen a forty-ninth time)</source>
        <translation>第四十九批新数据（模型第四十九次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="215"/>
        <source>fiftieth fresh (collected after the model was frozen a fiftieth time)</source>
        <translation>第五十批新数据（模型第五十次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="216"/>
        <source>fifty-first fresh (collected after the model was frozen a fifty-first time)</source>
        <translation>第五十一批新数据（模型第五十一次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="217"/>
        <source>fifty-second fresh (collected after the model was frozen a fifty-second time)</source>
        <translation>第五十二批新数据（模型第五十二次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="218"/>
        <source>fifty-third fresh (collected after the model was frozen a fifty-third time)</source>
        <translation>第五十三批新数据（模型第五十三次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="219"/>
        <source>fifty-fourth fresh (collected after the model was frozen a fifty-fourth time)</source>
        <translation>第五十四批新数据（模型第五十四次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="220"/>
        <source>fifty-fifth fresh (collected after the model was frozen a fifty-fifth time)</source>
        <translation>第五十五批新数据（模型第五十五次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="221"/>
        <source>fifty-sixth fresh (collected after the model was frozen a fifty-sixth time)</source>
        <translation>第五十六批新数据（模型第五十六次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="222"/>
        <source>fifty-seventh fresh (collected after the model was frozen a fifty-seventh time)</source>
        <translation>第五十七批新数据（模型第五十七次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="223"/>
        <source>fifty-eighth fresh (collected after the model was frozen a fifty-eighth time)</source>
        <translation>第五十八批新数据（模型第五十八次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="224"/>
        <source>fifty-ninth fresh (collected after the model was frozen a fifty-ninth time)</source>
        <translation>第五十九批新数据（模型第五十九次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="225"/>
        <source>sixtieth fresh (collected after the model was frozen a sixtieth time)</source>
        <translation>第六十批新数据（模型第六十次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="226"/>
        <source>sixty-first fresh (collected after the model was frozen a sixty-first time)</source>
        <translation>第六十一批新数据（模型第六十一次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="227"/>
        <source>sixty-second fresh (collected after the model was frozen a sixty-second time)</source>
        <translation>第六十二批新数据（模型第六十二次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="228"/>
        <source>sixty-third fresh (collected after the model was frozen a sixty-third time)</source>
        <translation>第六十三批新数据（模型第六十三次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="229"/>
        <source>sixty-fourth fresh (collected after the model was frozen a sixty-fourth time)</source>
        <translation>第六十四批新数据（模型第六十四次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="230"/>
        <source>sixty-fifth fresh (collected after the model was frozen a sixty-fifth time)</source>
        <translation>第六十五批新数据（模型第六十五次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="231"/>
        <source>sixty-sixth fresh (collected after the model was frozen a sixty-sixth time)</source>
        <translation>第六十六批新数据（模型第六十六次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="232"/>
        <source>sixty-seventh fresh (collected after the model was frozen a sixty-seventh time)</source>
        <translation>第六十七批新数据（模型第六十七次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="233"/>
        <source>sixty-eighth fresh (collected after the model was frozen a sixty-eighth time)</source>
        <translation>第六十八批新数据（模型第六十八次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="234"/>
        <source>sixty-ninth fresh (collected after the model was frozen a sixty-ninth time)</source>
        <translation>第六十九批新数据（模型第六十九次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="235"/>
        <source>seventieth fresh (collected after the model was frozen a seventieth time)</source>
        <translation>第七十批新数据（模型第七十次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="236"/>
        <source>seventy-first fresh (collected after the model was frozen a seventy-first time)</source>
        <translation>第七十一批新数据（模型第七十一次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="237"/>
        <source>seventy-second fresh (collected after the model was frozen a seventy-second time)</source>
        <translation>第七十二批新数据（模型第七十二次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="238"/>
        <source>seventy-third fresh (collected after the model was frozen a seventy-third time)</source>
        <translation>第七十三批新数据（模型第七十三次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="239"/>
        <source>seventy-fourth fresh (collected after the model was frozen a seventy-fourth time)</source>
        <translation>第七十四批新数据（模型第七十四次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="240"/>
        <source>seventy-fifth fresh (collected after the model was frozen a seventy-fifth time)</source>
        <translation>第七十五批新数据（模型第七十五次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="241"/>
        <source>seventy-sixth fresh (collected after the model was frozen a seventy-sixth time)</source>
        <translation>第七十六批新数据（模型第七十六次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="242"/>
        <source>seventy-seventh fresh (collected after the model was frozen a seventy-seventh time)</source>
        <translation>第七十七批新数据（模型第七十七次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="243"/>
        <source>seventy-eighth fresh (collected after the model was frozen a seventy-eighth time)</source>
        <translation>第七十八批新数据（模型第七十八次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="244"/>
        <source>seventy-ninth fresh (collected after the model was frozen a seventy-ninth time)</source>
        <translation>第七十九批新数据（模型第七十九次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="245"/>
        <source>eightieth fresh (collected after the model was frozen an eightieth time)</source>
        <translation>第八十批新数据（模型第八十次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="246"/>
        <source>eighty-first fresh (collected after the model was frozen an eighty-first time)</source>
        <translation>第八十一批新数据（模型第八十一次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="247"/>
        <source>eighty-second fresh (collected after the model was frozen an eighty-second time)</source>
        <translation>第八十二批新数据（模型第八十二次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="248"/>
        <source>eighty-third fresh (collected after the model was frozen an eighty-third time)</source>
        <translation>第八十三批新数据（模型第八十三次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="249"/>
        <source>eighty-fourth fresh (collected after the model was frozen an eighty-fourth time)</source>
        <translation>第八十四批新数据（模型第八十四次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="250"/>
        <source>eighty-fifth fresh (collected after the model was frozen an eighty-fifth time)</source>
        <translation>第八十五批新数据（模型第八十五次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="251"/>
        <source>eighty-sixth fresh (collected after the model was frozen an eighty-sixth time)</source>
        <translation>第八十六批新数据（模型第八十六次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="252"/>
        <source>eighty-seventh fresh (collected after the model was frozen an eighty-seventh time)</source>
        <translation>第八十七批新数据（模型第八十七次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="253"/>
        <source>eighty-eighth fresh (collected after the model was frozen an eighty-eighth time)</source>
        <translation>第八十八批新数据（模型第八十八次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="254"/>
        <source>eighty-ninth fresh (collected after the model was frozen an eighty-ninth time)</source>
        <translation>第八十九批新数据（模型第八十九次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="255"/>
        <source>ninetieth fresh (collected after the model was frozen a ninetieth time)</source>
        <translation>第九十批新数据（模型第九十次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="256"/>
        <source>ninety-first fresh (collected after the model was frozen a ninety-first time)</source>
        <translation>第九十一批新数据（模型第九十一次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="257"/>
        <source>ninety-second fresh (collected after the model was frozen a ninety-second time)</source>
        <translation>第九十二批新数据（模型第九十二次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="258"/>
        <source>ninety-third fresh (collected after the model was frozen a ninety-third time)</source>
        <translation>第九十三批新数据（模型第九十三次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="259"/>
        <source>ninety-fourth fresh (collected after the model was frozen a ninety-fourth time)</source>
        <translation>第九十四批新数据（模型第九十四次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="260"/>
        <source>ninety-fifth fresh (collected after the model was frozen a ninety-fifth time)</source>
        <translation>第九十五批新数据（模型第九十五次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="261"/>
        <source>ninety-sixth fresh (collected after the model was frozen a ninety-sixth time)</source>
        <translation>第九十六批新数据（模型第九十六次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="262"/>
        <source>ninety-seventh fresh (collected after the model was frozen a ninety-seventh time)</source>
        <translation>第九十七批新数据（模型第九十七次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="263"/>
        <source>ninety-eighth fresh (collected after the model was frozen a ninety-eighth time)</source>
        <translation>第九十八批新数据（模型第九十八次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="264"/>
        <source>ninety-ninth fresh (collected after the model was frozen a ninety-ninth time)</source>
        <translation>第九十九批新数据（模型第九十九次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="265"/>
        <source>hundredth fresh (collected after the model was frozen a hundredth time)</source>
        <translation>第一百批新数据（模型第一百次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="266"/>
        <source>hundred-and-first fresh (collected after the model was frozen a hundred-and-first time)</source>
        <translation>第一百零一批新数据（模型第一百零一次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="267"/>
        <source>hundred-and-second fresh (collected after the model was frozen a hundred-and-second time)</source>
        <translation>第一百零二批新数据（模型第一百零二次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="268"/>
        <source>hundred-and-third fresh (collected after the model was frozen a hundred-and-third time)</source>
        <translation>第一百零三批新数据（模型第一百零三次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="269"/>
        <source>hundred-and-fourth fresh (collected after the model was frozen a hundred-and-fourth time)</source>
        <translation>第一百零四批新数据（模型第一百零四次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="270"/>
        <source>hundred-and-fifth fresh (collected after the model was frozen a hundred-and-fifth time)</source>
        <translation>第一百零五批新数据（模型第一百零五次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="271"/>
        <source>hundred-and-sixth fresh (collected after the model was frozen a hundred-and-sixth time)</source>
        <translation>第一百零六批新数据（模型第一百零六次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="272"/>
        <source>hundred-and-seventh fresh (collected after the model was frozen a hundred-and-seventh time)</source>
        <translation>第一百零七批新数据（模型第一百零七次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="273"/>
        <source>hundred-and-eighth fresh (collected after the model was frozen a hundred-and-eighth time)</source>
        <translation>第一百零八批新数据（模型第一百零八次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="274"/>
        <source>hundred-and-ninth fresh (collected after the model was frozen a hundred-and-ninth time)</source>
        <translation>第一百零九批新数据（模型第一百零九次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="275"/>
        <source>hundred-and-tenth fresh (collected after the model was frozen a hundred-and-tenth time)</source>
        <translation>第一百一十批新数据（模型第一百一十次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="276"/>
        <source>hundred-and-eleventh fresh (collected after the model was frozen a hundred-and-eleventh time)</source>
        <translation>第一百一十一批新数据（模型第一百一十一次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="277"/>
        <source>hundred-and-twelfth fresh (collected after the model was frozen a hundred-and-twelfth time)</source>
        <translation>第一百一十二批新数据（模型第一百一十二次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="278"/>
        <source>hundred-and-thirteenth fresh (collected after the model was frozen a hundred-and-thirteenth time)</source>
        <translation>第一百一十三批新数据（模型第一百一十三次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="279"/>
        <source>hundred-and-fourteenth fresh (collected after the model was frozen a hundred-and-fourteenth time)</source>
        <translation>第一百一十四批新数据（模型第一百一十四次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="280"/>
        <source>hundred-and-fifteenth fresh (collected after the model was frozen a hundred-and-fifteenth time)</source>
        <translation>第一百一十五批新数据（模型第一百一十五次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="281"/>
        <source>hundred-and-sixteenth fresh (collected after the model was frozen a hundred-and-sixteenth time)</source>
        <translation>第一百一十六批新数据（模型第一百一十六次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="282"/>
        <source>hundred-and-seventeenth fresh (collected after the model was frozen a hundred-and-seventeenth time)</source>
        <translation>第一百一十七批新数据（模型第一百一十七次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="283"/>
        <source>hundred-and-eighteenth fresh (collected after the model was frozen a hundred-and-eighteenth time)</source>
        <translation>第一百一十八批新数据（模型第一百一十八次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="284"/>
        <source>hundred-and-nineteenth fresh (collected after the model was frozen a hundred-and-nineteenth time)</source>
        <translation>第一百一十九批新数据（模型第一百一十九次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="285"/>
        <source>hundred-and-twentieth fresh (collected after the model was frozen a hundred-and-twentieth time)</source>
        <translation>第一百二十批新数据（模型第一百二十次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="286"/>
        <source>hundred-and-twenty-first fresh (collected after the model was frozen a hundred-and-twenty-first time)</source>
        <translation>第一百二十一批新数据（模型第一百二十一次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="287"/>
        <source>hundred-and-twenty-second fresh (collected after the model was frozen a hundred-and-twenty-second time)</source>
        <translation>第一百二十二批新数据（模型第一百二十二次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="288"/>
        <source>hundred-and-twenty-third fresh (collected after the model was frozen a hundred-and-twenty-third time)</source>
        <translation>第一百二十三批新数据（模型第一百二十三次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="289"/>
        <source>hundred-and-twenty-fourth fresh (collected after the model was frozen a hundred-and-twenty-fourth time)</source>
        <translation>第一百二十四批新数据（模型第一百二十四次冻结后收集）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="310"/>
        <source>The accuracy check could not run: %1</source>
        <translation>无法运行准确度检查：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="316"/>
        <source>This estimator is within 15 % on %1 of %2 published measurements (median error %3 %).</source>
        <translation>在 %2 个公开实测中，此估算器有 %1 个误差在 15 % 以内（误差中位数 %3 %）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="321"/>
        <source>%1 sources; %2 more cases are listed but not scored (their setup is not fully published or uses pipeline parallelism, which is not modelled).</source>
        <translation>%1 个来源；另有 %2 个案例已列出但未计分（其配置未完整公开，或使用了未建模的流水线并行）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="331"/>
        <source>No published measurement of a %1 job yet: treat the figure as unvalidated.</source>
        <translation>尚无 %1 作业的公开实测数据：请将该数值视为未经验证。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="334"/>
        <source>For %1 jobs: within 15 % on %2 of %3 cases, median error %4 %.</source>
        <translation>对于 %1 作业：%3 个案例中有 %2 个误差在 15 % 以内，误差中位数 %4 %。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/accuracy_view.py" line="343"/>
        <source>%1 (not scored)</source>
        <translation>%1（未计分）</translation>
    </message>
</context>
<context>
    <name>ExportButton</name>
    <message>
        <location filename="../../gpudesk/ui/plan/export_menu.py" line="62"/>
        <source>E&amp;xport sheet</source>
        <translation>导出配置单(&amp;X)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/export_menu.py" line="66"/>
        <source>Markdown (.md)…</source>
        <translation>Markdown (.md)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/export_menu.py" line="67"/>
        <source>PDF (.pdf)…</source>
        <translation>PDF (.pdf)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/export_menu.py" line="68"/>
        <source>JSON (.json)…</source>
        <translation>JSON (.json)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/export_menu.py" line="69"/>
        <source>CSV bill of materials (.csv)…</source>
        <translation>CSV 物料清单 (.csv)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/export_menu.py" line="95"/>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/export_menu.py" line="95"/>
        <source>PDF (*.pdf)</source>
        <translation>PDF (*.pdf)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/export_menu.py" line="95"/>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/export_menu.py" line="96"/>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/export_menu.py" line="97"/>
        <source>Export configuration sheet</source>
        <translation>导出配置单</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/export_menu.py" line="150"/>
        <source>Configuration sheet written to {0}</source>
        <translation>配置单已写入 {0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/export_menu.py" line="155"/>
        <source>Export failed: {0}</source>
        <translation>导出失败：{0}</translation>
    </message>
</context>
<context>
    <name>FilterBar</name>
    <message>
        <location filename="../../gpudesk/ui/catalog/filter_bar.py" line="24"/>
        <source>Search name, architecture, notes…</source>
        <translation>搜索名称、架构、备注…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/filter_bar.py" line="27"/>
        <source>Full-text search; every word must match the start of a word (Ctrl+F)</source>
        <translation>全文搜索；每个词都须匹配某个词的开头（Ctrl+F）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/filter_bar.py" line="28"/>
        <source>All vendors</source>
        <translation>所有厂商</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/filter_bar.py" line="29"/>
        <source>All architectures</source>
        <translation>所有架构</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/filter_bar.py" line="30"/>
        <source>All form factors</source>
        <translation>所有形态</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/filter_bar.py" line="32"/>
        <source>FP8: any</source>
        <translation>FP8：不限</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/filter_bar.py" line="33"/>
        <source>FP8: yes</source>
        <translation>FP8：支持</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/filter_bar.py" line="34"/>
        <source>FP8: no</source>
        <translation>FP8：不支持</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/filter_bar.py" line="35"/>
        <source>Hardware FP8 tensor/matrix cores (Ada, Hopper, Blackwell, CDNA 3)</source>
        <translation>硬件 FP8 张量/矩阵核心（Ada、Hopper、Blackwell、CDNA 3）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/filter_bar.py" line="42"/>
        <source>GPU memory range in GiB (the datasheet&apos;s GB of GPU memory are GiB)</source>
        <translation>GPU 显存范围，单位 GiB（数据手册中 GPU 显存的 GB 即 GiB）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/filter_bar.py" line="43"/>
        <source>&amp;Search:</source>
        <translation>搜索(&amp;S)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/filter_bar.py" line="45"/>
        <source>&amp;Memory:</source>
        <translation>显存(&amp;M)：</translation>
    </message>
</context>
<context>
    <name>FindingsListView</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="129"/>
        <source>Finding</source>
        <translation>发现</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="129"/>
        <source>Scope</source>
        <translation>范围</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="129"/>
        <source>Length</source>
        <translation>时长</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="129"/>
        <source>Severity</source>
        <translation>严重程度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="130"/>
        <source>Findings grouped by rule</source>
        <translation>按规则分组的发现</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="137"/>
        <source>Evidence and advice of the selected finding</source>
        <translation>所选发现的证据和建议</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="157"/>
        <source>No findings yet.</source>
        <translation>暂无发现。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="171"/>
        <source>{rule} ({n})</source>
        <translation>{rule}（{n}）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="181"/>
        <source>job</source>
        <translation>作业</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="181"/>
        <source>GPU {gpu}</source>
        <translation>GPU {gpu}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="208"/>
        <source>Rule</source>
        <translation>规则</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="208"/>
        <source>Evidence</source>
        <translation>证据</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="209"/>
        <source>What to do</source>
        <translation>处理建议</translation>
    </message>
</context>
<context>
    <name>FindingsView</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_view.py" line="39"/>
        <source>&amp;Analyze span</source>
        <translation>分析区间(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_view.py" line="41"/>
        <source>Run the bottleneck rules over the selected span, or over the visible range when no span is shown.</source>
        <translation>对所选区间运行瓶颈规则；未显示区间时，对可见范围运行。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_view.py" line="43"/>
        <source>No analysis yet.</source>
        <translation>尚未分析。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_view.py" line="46"/>
        <source>Rule &amp;thresholds…</source>
        <translation>规则阈值(&amp;T)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_view.py" line="47"/>
        <source>Change the limits the rules judge by; the findings are computed again when you save.</source>
        <translation>修改规则判定所依据的阈值；保存后将重新计算发现。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_view.py" line="50"/>
        <source>&amp;Burn-in report…</source>
        <translation>拷机测试报告(&amp;B)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_view.py" line="51"/>
        <source>The burn-in report of the recording in view, optionally against a saved plan; exports PDF, HTML and Markdown.</source>
        <translation>当前录制的拷机测试报告，可对照一个已保存的方案；可导出 PDF、HTML 和 Markdown。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_view.py" line="69"/>
        <source>Analyzing…</source>
        <translation>正在分析…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_view.py" line="80"/>
        <source>The analysis failed: {m}</source>
        <translation>分析失败：{m}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_view.py" line="90"/>
        <source>{n} findings ({p} warnings or worse, {u} not judged){s}.</source>
        <translation>{n} 条发现（{p} 条为警告或更严重，{u} 条未判定）{s}。</translation>
    </message>
</context>
<context>
    <name>FleetConnectionDialog</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="49"/>
        <source>Connect to a GPU fleet (Prometheus)</source>
        <translation>连接到 GPU 集群（Prometheus）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="53"/>
        <source>http://prometheus.example:9090</source>
        <translation>http://prometheus.example:9090</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="55"/>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="55"/>
        <source>User and password</source>
        <translation>用户名和密码</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="56"/>
        <source>Bearer token</source>
        <translation>Bearer 令牌</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="63"/>
        <source>system CA store</source>
        <translation>系统 CA 证书库</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="64"/>
        <source>&amp;Browse…</source>
        <translation>浏览(&amp;B)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="74"/>
        <source>Server &amp;URL:</source>
        <translation>服务器 URL(&amp;U)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="75"/>
        <source>&amp;Authentication:</source>
        <translation>认证方式(&amp;A)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="76"/>
        <source>U&amp;ser:</source>
        <translation>用户名(&amp;S)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="77"/>
        <source>&amp;Password or token (kept in the system keyring):</source>
        <translation>密码或令牌（保存在系统密钥环中）(&amp;P)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="78"/>
        <source>&amp;CA file:</source>
        <translation>CA 文件(&amp;C)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="81"/>
        <source>&amp;Timeout:</source>
        <translation>超时(&amp;T)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="82"/>
        <source>&amp;Test connection</source>
        <translation>测试连接(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="84"/>
        <source>Only the address above is contacted.</source>
        <translation>只会连接上面填写的地址。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="106"/>
        <source>CA certificate</source>
        <translation>CA 证书</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="106"/>
        <source>PEM files (*.pem *.crt)</source>
        <translation>PEM 文件 (*.pem *.crt)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="119"/>
        <source>Connecting…</source>
        <translation>正在连接…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="125"/>
        <source>Connected: {what}.</source>
        <translation>已连接：{what}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_connection_dialog.py" line="130"/>
        <source>Failed: {why}</source>
        <translation>失败：{why}</translation>
    </message>
</context>
<context>
    <name>FleetGrid</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_grid.py" line="70"/>
        <source>GPU fleet heat map</source>
        <translation>GPU 集群热力图</translation>
    </message>
</context>
<context>
    <name>FleetView</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="68"/>
        <source>{label} ({unit})</source>
        <translation>{label}（{unit}）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="71"/>
        <source>By host</source>
        <translation>按主机</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="72"/>
        <source>By job (pod / Slurm)</source>
        <translation>按作业（pod / Slurm）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="73"/>
        <source>&amp;Metric:</source>
        <translation>指标(&amp;M)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="75"/>
        <source>&amp;Group:</source>
        <translation>分组(&amp;G)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="86"/>
        <source>Severity</source>
        <translation>严重程度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="86"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="86"/>
        <source>UUID</source>
        <translation>UUID</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="86"/>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="87"/>
        <source>Finding</source>
        <translation>发现</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="117"/>
        <source>Connecting to {fleet}…</source>
        <translation>正在连接 {fleet}…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="124"/>
        <source>No data: {reason}</source>
        <translation>无数据：{reason}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="127"/>
        <source>The last refresh failed ({reason}); the grid shows the previous one.</source>
        <translation>上次刷新失败（{reason}）；网格显示的是之前的数据。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="152"/>
        <source>N/A</source>
        <translation>不可用</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="153"/>
        <source>UUID: %1</source>
        <translation>UUID：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="154"/>
        <source>Model: %1</source>
        <translation>型号：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="155"/>
        <source>Job: %1</source>
        <translation>作业：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="155"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="156"/>
        <source>%1 (mean): %2</source>
        <translation>%1（均值）：%2</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_view.py" line="164"/>
        <source>{n} GPUs, {hours} h, step {step} s; colour = window mean, {lo} (dark) to {hi} (bright), grey = N/A</source>
        <translation>{n} 块 GPU，{hours} 小时，步长 {step} 秒；颜色 = 窗口均值，{lo}（暗）到 {hi}（亮），灰色 = 不可用</translation>
    </message>
</context>
<context>
    <name>GpmPlots</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpm_plots.py" line="36"/>
        <source>SM active</source>
        <translation>SM 活跃度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpm_plots.py" line="37"/>
        <source>SM occupancy</source>
        <translation>SM 占用率</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpm_plots.py" line="38"/>
        <source>Tensor pipe active</source>
        <translation>Tensor 流水线活跃度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpm_plots.py" line="39"/>
        <source>DRAM active</source>
        <translation>显存（DRAM）活跃度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpm_plots.py" line="46"/>
        <source>Share of time each SM had at least one warp resident, averaged over all SMs (NVML GPM or DCGM SMACT, ratio x 100).</source>
        <translation>每个 SM 至少驻留一个 warp 的时间占比，对所有 SM 取平均（NVML GPM 或 DCGM SMACT，比值 x 100）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpm_plots.py" line="49"/>
        <source>Warps resident on the SMs as a share of the most they can hold (NVML GPM or DCGM SMOCC, ratio x 100).</source>
        <translation>SM 上驻留的 warp 数占其最大可驻留数的比例（NVML GPM 或 DCGM SMOCC，比值 x 100）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpm_plots.py" line="52"/>
        <source>Share of time the tensor pipes were busy (NVML GPM or DCGM TENSO, ratio x 100).</source>
        <translation>Tensor 流水线忙碌的时间占比（NVML GPM 或 DCGM TENSO，比值 x 100）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpm_plots.py" line="54"/>
        <source>Share of time device memory was sending or receiving data (NVML GPM or DCGM DRAMA, ratio x 100).</source>
        <translation>设备显存收发数据的时间占比（NVML GPM 或 DCGM DRAMA，比值 x 100）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpm_plots.py" line="153"/>
        <source>SM activity, occupancy, tensor and DRAM activity: {why}</source>
        <translation>SM 活跃度、占用率、Tensor 与显存活跃度：{why}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpm_plots.py" line="155"/>
        <source>SM activity, occupancy, tensor and DRAM activity are not supported on this GPU or not in this source (they need NVML GPM on a Hopper or later GPU, or DCGM profiling fields).</source>
        <translation>此 GPU 不支持或此数据源中没有 SM 活跃度、占用率、Tensor 与显存活跃度（需要 Hopper 或更新 GPU 上的 NVML GPM，或 DCGM 性能剖析字段）。</translation>
    </message>
</context>
<context>
    <name>GpuDetailPane</name>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="81"/>
        <source>Sources:</source>
        <translation>来源：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="88"/>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="223"/>
        <source>Your price</source>
        <translation>您的价格</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="95"/>
        <source>type your quote</source>
        <translation>输入您的报价</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="97"/>
        <source>Your quote for this GPU in US dollars; plans use it instead of the catalog price.</source>
        <translation>您对此 GPU 的报价（美元）；规划将用它代替目录价格。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="98"/>
        <source>Save pr&amp;ice</source>
        <translation>保存价格(&amp;I)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="99"/>
        <source>Keep this price in your gpudesk database</source>
        <translation>将此价格保存在您的 gpudesk 数据库中</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="100"/>
        <source>Use &amp;catalog price</source>
        <translation>使用目录价格(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="101"/>
        <source>Remove your price for this GPU</source>
        <translation>删除您为此 GPU 设置的价格</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="102"/>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="103"/>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="165"/>
        <source>Nothing to undo yet</source>
        <translation>暂无可撤销的操作</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="107"/>
        <source>&amp;Price:</source>
        <translation>价格(&amp;P)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="122"/>
        <source>&amp;Will a model fit on it?…</source>
        <translation>模型放得下吗(&amp;W)？…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="123"/>
        <source>Size a model&apos;s start-up in vLLM, SGLang, TensorRT-LLM, llama.cpp or Ollama on this GPU</source>
        <translation>估算模型在此 GPU 上以 vLLM、SGLang、TensorRT-LLM、llama.cpp 或 Ollama 启动所需的显存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="165"/>
        <source>Undo: {0}</source>
        <translation>撤销：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="181"/>
        <source>Select a GPU in the table or the chart to see every spec.</source>
        <translation>在表格或图表中选择一款 GPU 以查看全部规格。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="202"/>
        <source>Open {0} in your web browser</source>
        <translation>在网页浏览器中打开 {0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="218"/>
        <source>no public price found</source>
        <translation>未找到公开价格</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="224"/>
        <source>No public price found for this GPU; enter your quote.</source>
        <translation>未找到这款 GPU 的公开价格；请输入你的报价。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="233"/>
        <source>Price overrides are unavailable: {0}</source>
        <translation>无法使用自定义价格：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="234"/>
        <source>the user database is not open.</source>
        <translation>用户数据库未打开。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="244"/>
        <source>Your price since {0}.</source>
        <translation>您的价格，自 {0} 起。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="248"/>
        <source>Catalog price: {0} ({1}).</source>
        <translation>目录价格：{0}（{1}）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/detail_pane.py" line="250"/>
        <source>The catalog has no dated price for this GPU; enter your quote.</source>
        <translation>目录中没有此 GPU 注明日期的价格；请输入您的报价。</translation>
    </message>
</context>
<context>
    <name>GpuTable</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="276"/>
        <source>Tick a GPU to draw it in the plots; hover a value to see why it is N/A.</source>
        <translation>勾选 GPU 即可在曲线图中绘制；将鼠标悬停在数值上可查看其为何不可用。</translation>
    </message>
</context>
<context>
    <name>GpuTableModel</name>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="181"/>
        <source>{0}: dense throughput from the datasheet (no 2:4 sparsity).</source>
        <translation>{0}：数据手册中的稠密吞吐量（不含 2:4 稀疏）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="183"/>
        <source>{0}: the memory on the card; the datasheet&apos;s GB are GiB here (80 GB of HBM is 80 GiB). The planner plans against what is usable after the driver&apos;s and CUDA context&apos;s share (79.18 GiB of an H100&apos;s 80).</source>
        <translation>{0}：卡上的显存；此处数据手册的 GB 即 GiB（80 GB HBM 即 80 GiB）。规划器按扣除驱动和 CUDA 上下文占用后的可用显存规划（H100 的 80 GiB 中可用 79.18 GiB）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="189"/>
        <source>Catalog price with its date, or your own price where you set one (in italics).</source>
        <translation>目录价格及其日期；如您设置了自己的价格则显示该价格（斜体）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="243"/>
        <source>Your own price (gpudesk user database)</source>
        <translation>您自己的价格（gpudesk 用户数据库）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="262"/>
        <source>Your price, set {0}. Catalog: {1}</source>
        <translation>您的价格，设置于 {0}。目录：{1}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="266"/>
        <source>{0} price, {1}; source: {2}</source>
        <translation>{0} 价格，{1}；来源：{2}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/table_model.py" line="269"/>
        <source>Lowest on-demand rate in the catalog: {0}</source>
        <translation>目录中最低的按需租用价：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="23"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="24"/>
        <source>Util %</source>
        <translation>利用率 %</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="26"/>
        <source>SM active %</source>
        <translation>SM 活跃 %</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="27"/>
        <source>Tensor active %</source>
        <translation>Tensor 活跃 %</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="28"/>
        <source>Memory used / total (GiB)</source>
        <translation>已用显存 / 总显存 (GiB)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="29"/>
        <source>PCIe RX (% of link, or MB/s)</source>
        <translation>PCIe RX（占链路 %，或 MB/s）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="30"/>
        <source>PCIe TX (% of link, or MB/s)</source>
        <translation>PCIe TX（占链路 %，或 MB/s）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="31"/>
        <source>Power (W)</source>
        <translation>功耗 (W)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="32"/>
        <source>Temp (°C)</source>
        <translation>温度 (°C)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="33"/>
        <source>SM clock (MHz)</source>
        <translation>SM 时钟 (MHz)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="34"/>
        <source>State</source>
        <translation>状态</translation>
    </message>
</context>
<context>
    <name>HeatmapView</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/heatmap_view.py" line="49"/>
        <source>Metric drawn in the heat map</source>
        <translation>热力图中绘制的指标</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/heatmap_view.py" line="52"/>
        <source>{n} time bins</source>
        <translation>{n} 个时间区段</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/heatmap_view.py" line="58"/>
        <source>Metric:</source>
        <translation>指标：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/heatmap_view.py" line="66"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/heatmap_view.py" line="72"/>
        <source>Hover a cell for its value.</source>
        <translation>将鼠标悬停在单元格上可查看其值。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/heatmap_view.py" line="99"/>
        <source>No samples yet.</source>
        <translation>尚无样本。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/heatmap_view.py" line="129"/>
        <source>1 sampling round: one column</source>
        <translation>1 轮采样：一列</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/heatmap_view.py" line="130"/>
        <source>{n} sampling rounds: one column per round</source>
        <translation>{n} 轮采样：每轮一列</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/heatmap_view.py" line="131"/>
        <source>{gpus} GPU(s), {rounds}; {na} cell(s) N/A (grey).</source>
        <translation>{gpus} 块 GPU，{rounds}；{na} 个单元格不可用（灰色）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/heatmap_view.py" line="134"/>
        <source>{gpus} GPUs, {bins} bins of {w} each over {span}; {na} cells N/A (grey).</source>
        <translation>{gpus} 块 GPU，{bins} 个区段，每段 {w}，覆盖 {span}；{na} 个单元格不可用（灰色）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/heatmap_view.py" line="163"/>
        <source>N/A (no readable sample in this bin)</source>
        <translation>不可用（此区段内没有可读样本）</translation>
    </message>
</context>
<context>
    <name>HistoryView</name>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="66"/>
        <source>When (UTC)</source>
        <translation>时间（UTC）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="66"/>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="66"/>
        <source>Framework</source>
        <translation>框架</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="66"/>
        <source>Top cause</source>
        <translation>首要原因</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="66"/>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="80"/>
        <source>&amp;Reopen</source>
        <translation>重新打开(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="81"/>
        <source>Show the selected diagnosis again (double-click works too)</source>
        <translation>再次显示所选诊断（也可双击）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="84"/>
        <source>Remove the selected diagnosis from the history</source>
        <translation>从历史记录中删除所选诊断</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="83"/>
        <source>D&amp;elete</source>
        <translation>删除(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="86"/>
        <source>Refre&amp;sh</source>
        <translation>刷新(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="101"/>
        <source>The diagnosis could not be saved to the history: %1</source>
        <translation>诊断无法保存到历史记录：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="110"/>
        <source>No user database is open, so the history is not available.</source>
        <translation>未打开用户数据库，因此历史记录不可用。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="116"/>
        <source>The history cannot be read: %1</source>
        <translation>无法读取历史记录：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="125"/>
        <source>N/A</source>
        <translation>N/A</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="126"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="134"/>
        <source>Cause id: %1</source>
        <translation>原因编号：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="137"/>
        <source>%1 saved diagnosis(es).</source>
        <translation>已保存 %1 条诊断。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="139"/>
        <source>No saved diagnoses yet: every diagnosis you run is kept here.</source>
        <translation>还没有保存的诊断：每次运行的诊断都会保存在这里。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="170"/>
        <source>%1, saved %2</source>
        <translation>%1，保存于 %2</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="179"/>
        <source>Delete diagnosis?</source>
        <translation>删除诊断？</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="180"/>
        <source>Delete the saved diagnosis %1 from the history? This cannot be undone.</source>
        <translation>从历史记录中删除已保存的诊断 %1？此操作无法撤销。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/history_view.py" line="186"/>
        <source>The diagnosis could not be deleted: %1</source>
        <translation>无法删除该诊断：%1</translation>
    </message>
</context>
<context>
    <name>ImportDialog</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="67"/>
        <source>Import nvidia-smi dmon data</source>
        <translation>导入 nvidia-smi dmon 数据</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="69"/>
        <source>A dmon &amp;log file</source>
        <translation>dmon 日志文件(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="70"/>
        <source>A live dmon &amp;stream from a command</source>
        <translation>来自命令的实时 dmon 数据流(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="76"/>
        <source>Path of a file written by: nvidia-smi dmon -s umt -o DT &gt; run.log</source>
        <translation>由以下命令写出的文件路径：nvidia-smi dmon -s umt -o DT &gt; run.log</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="77"/>
        <source>&amp;Browse…</source>
        <translation>浏览(&amp;B)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="84"/>
        <source>Runs this command and reads its output as it arrives, for example &apos;ssh lab-node nvidia-smi dmon -s umt -o DT&apos;. Include &apos;-s t&apos; for PCIe and &apos;-o DT&apos; for time stamps.</source>
        <translation>运行此命令并在输出到达时读取，例如 &apos;ssh lab-node nvidia-smi dmon -s umt -o DT&apos;。加上 &apos;-s t&apos; 以获得 PCIe 数据，加上 &apos;-o DT&apos; 以获得时间戳。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="89"/>
        <source>The GPU model that produced the log; its PCIe link is assumed for the PCIe share. Type to search.</source>
        <translation>产生该日志的 GPU 型号；PCIe 占比按其 PCIe 链路估算。输入以搜索。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="91"/>
        <source>Unknown model (no PCIe share)</source>
        <translation>未知型号（无 PCIe 占比）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="110"/>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="114"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="111"/>
        <source>Gen</source>
        <translation>Gen</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="130"/>
        <source>dmon&apos;s -d delay; used to place rows in time when the log has no Date/Time columns (-o DT).</source>
        <translation>dmon 的 -d 间隔；当日志没有 Date/Time 列（-o DT）时，用它确定各行的时间。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="133"/>
        <source>The GPU catalog could not be opened; enter the PCIe link by hand.</source>
        <translation>无法打开 GPU 目录；请手动输入 PCIe 链路。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="137"/>
        <source>Log file:</source>
        <translation>日志文件：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="139"/>
        <source>Command:</source>
        <translation>命令：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="140"/>
        <source>GPU &amp;model:</source>
        <translation>GPU 型号(&amp;M)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="143"/>
        <source>PCIe link (assumed):</source>
        <translation>PCIe 链路（假定）：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="145"/>
        <source>Sampling &amp;interval:</source>
        <translation>采样间隔(&amp;I)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="193"/>
        <source>The GPU catalog could not be opened, so {t} cannot be looked up; pick &quot;Unknown model&quot; and enter the PCIe link by hand.</source>
        <translation>无法打开 GPU 目录，因此无法查找 {t}；请选择“未知型号”并手动输入 PCIe 链路。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="204"/>
        <source>Open the list to pick one.</source>
        <translation>打开列表选择一个。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="205"/>
        <source>GPU model: {e}</source>
        <translation>GPU 型号：{e}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="211"/>
        <source>Open a dmon log</source>
        <translation>打开 dmon 日志</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="212"/>
        <source>Text logs (*.log *.txt *.dmon);;All files (*)</source>
        <translation>文本日志 (*.log *.txt *.dmon);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="239"/>
        <source>Choose the dmon log file to import.</source>
        <translation>请选择要导入的 dmon 日志文件。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="242"/>
        <source>Type the command that prints dmon output.</source>
        <translation>请输入输出 dmon 数据的命令。</translation>
    </message>
</context>
<context>
    <name>LanguageMenu</name>
    <message>
        <location filename="../../gpudesk/ui/language_menu.py" line="35"/>
        <source>&amp;Language</source>
        <extracomment>QSettings key of the chosen language: one of LANGUAGES, or &quot;&quot; to follow the system locale. Each language is named in itself, so a user can find theirs whatever the current language is.</extracomment>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/language_menu.py" line="41"/>
        <source>System language</source>
        <translation>系统语言</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/language_menu.py" line="59"/>
        <source>The language changes the next time gpudesk starts.</source>
        <translation>语言将在下次启动 gpudesk 时更改。</translation>
    </message>
</context>
<context>
    <name>LatencyThroughputChart</name>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="234"/>
        <source>Sustained QPS (requests/s)</source>
        <translation>可持续 QPS（请求/秒）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="235"/>
        <source>Latency (ms)</source>
        <translation>延迟（毫秒）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="242"/>
        <source>Time to first token</source>
        <translation>首 token 延迟</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="243"/>
        <source>Time per output token</source>
        <translation>每输出 token 时间</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="264"/>
        <source>Target QPS</source>
        <translation>目标 QPS</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="265"/>
        <source>Dashed red line: the target of {0:g} requests/s.</source>
        <translation>红色虚线：目标 {0:g} 请求/秒。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="266"/>
        <source>TTFT target</source>
        <translation>TTFT 目标</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="267"/>
        <source>TPOT target</source>
        <translation>TPOT 目标</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="278"/>
        <source>Each option at the QPS it sustains: its time to first token (circles) and time per output token (triangles).</source>
        <translation>每个选项位于其可持续的 QPS 处：首 token 延迟（圆点）和每输出 token 时间（三角形）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="281"/>
        <source>No option has a sustained QPS (this is not a serving plan).</source>
        <translation>没有选项具有可持续 QPS（这不是推理服务方案）。</translation>
    </message>
</context>
<context>
    <name>LaunchPanel</name>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="59"/>
        <source>python train.py --batch-size 32</source>
        <translation>python train.py --batch-size 32</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="61"/>
        <source>The command to start, as in a shell (no shell features such as pipes or variables)</source>
        <translation>要启动的命令，按 shell 中的写法（不支持管道、变量等 shell 功能）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="67"/>
        <source>current folder</source>
        <translation>当前文件夹</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="68"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="80"/>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="81"/>
        <source>How often the probe samples allocated and reserved memory</source>
        <translation>探针采样已分配和已保留显存的间隔</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="86"/>
        <source>Start the command with the memory probe preinstalled</source>
        <translation>启动命令并预装显存探针</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="64"/>
        <source>Comman&amp;d:</source>
        <translation>命令(&amp;D)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="72"/>
        <source>Wor&amp;king folder:</source>
        <translation>工作目录(&amp;K)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="82"/>
        <source>Sample e&amp;very:</source>
        <translation>采样间隔(&amp;V)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="85"/>
        <source>Launch and &amp;watch</source>
        <translation>启动并监视(&amp;W)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="88"/>
        <source>St&amp;op</source>
        <translation>停止(&amp;O)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="89"/>
        <source>End the job; what was sampled so far is kept</source>
        <translation>结束作业；已采样的数据会保留</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="99"/>
        <source>Output of the job:</source>
        <translation>作业输出：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="104"/>
        <source>The job&apos;s standard output and errors appear here.</source>
        <translation>作业的标准输出和错误输出显示在这里。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="119"/>
        <source>Cannot read the command: %1</source>
        <translation>无法解析命令：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/launch_panel.py" line="126"/>
        <source>Working folder for the command</source>
        <translation>命令的工作文件夹</translation>
    </message>
</context>
<context>
    <name>LazyTab</name>
    <message>
        <location filename="../../gpudesk/ui/lazy_tab.py" line="57"/>
        <source>This tab could not be opened: {0}</source>
        <translation>无法打开此标签页：{0}</translation>
    </message>
</context>
<context>
    <name>LiveMemoryCurve</name>
    <message>
        <location filename="../../gpudesk/ui/oom/live_curve.py" line="61"/>
        <location filename="../../gpudesk/ui/oom/live_curve.py" line="98"/>
        <source>No job launched.</source>
        <translation>尚未启动作业。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/live_curve.py" line="68"/>
        <source>time since launch</source>
        <translation>启动后的时间</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/live_curve.py" line="69"/>
        <source>memory (GiB)</source>
        <translation>显存 (GiB)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/live_curve.py" line="75"/>
        <source>PyTorch memory_allocated and memory_reserved of the launched job, in GiB</source>
        <translation>所启动作业的 PyTorch memory_allocated 和 memory_reserved，单位 GiB</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/live_curve.py" line="84"/>
        <source>Launch a command to see its memory over time.</source>
        <translation>启动一条命令以查看其显存随时间的变化。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/live_curve.py" line="99"/>
        <source>Waiting for the first memory sample …</source>
        <translation>正在等待第一个显存样本 …</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/live_curve.py" line="114"/>
        <source>host RSS (CPU memory)</source>
        <translation>主机 RSS（CPU 内存）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/live_curve.py" line="170"/>
        <source>GPU %1 allocated</source>
        <translation>GPU %1 已分配</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/live_curve.py" line="170"/>
        <source>GPU %1 reserved</source>
        <translation>GPU %1 已保留</translation>
    </message>
</context>
<context>
    <name>LivePreview</name>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="53"/>
        <source>The card whose usable memory and safe line the bars are drawn against</source>
        <translation>柱形图所对照的显卡（其可用显存和安全线）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="62"/>
        <source>GPUs the job is spread over (sharding as answered; ZeRO-3 when &apos;auto&apos; and more than one GPU)</source>
        <translation>作业分布的 GPU 数（按所答的分片方式；为 &apos;auto&apos; 且多于一块 GPU 时用 ZeRO-3）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="66"/>
        <source>Card:</source>
        <translation>显卡：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="67"/>
        <source>GPUs:</source>
        <translation>GPU 数：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="68"/>
        <source>Memory per GPU (live)</source>
        <translation>每 GPU 显存（实时）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="110"/>
        <source>Plan option #{0}, with the settings the search chose{1}.</source>
        <translation>方案选项 #{0}，采用搜索选定的设置{1}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="201"/>
        <source>Memory preview paused: {0}</source>
        <translation>显存预览已暂停：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="213"/>
        <source>card</source>
        <translation>显卡</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="216"/>
        <source>Sharding {0}, recomputation {1}{2}.</source>
        <translation>分片 {0}，重计算 {1}{2}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="218"/>
        <source> (chosen for &apos;auto&apos;)</source>
        <translation>（&apos;auto&apos; 时自动选择）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="224"/>
        <source>The model shape is inferred from the parameter count (a guess).</source>
        <translation>模型结构由参数量推断（估计值）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="114"/>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="225"/>
        <source>per GPU</source>
        <translation>每 GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="258"/>
        <source>Fits under the safe line on {0} of these cards.</source>
        <translation>使用 {0} 块此卡时低于安全线。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="259"/>
        <source>Fits under the safe line on {0} of these cards (with {1}, recomputation {2}).</source>
        <translation>使用 {0} 块此卡时低于安全线（{1}，重计算 {2}）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="262"/>
        <source>Does not fit this card at any count here; pick a larger card or a smaller format.</source>
        <translation>此卡在这里的任何数量下都放不下；请选择更大的显卡或更小的格式。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/live_preview.py" line="263"/>
        <source>Does not fit up to {0} of these cards; try LoRA/QLoRA, offload or a larger card.</source>
        <translation>最多 {0} 块此卡也放不下；请尝试 LoRA/QLoRA、卸载或更大的显卡。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../gpudesk/ui/main_window.py" line="77"/>
        <source>gpudesk</source>
        <extracomment>Start the deferred start-up this long after the window is shown even when no first paint was seen (ms). Imported on the thread pool before the catalog opens (after the first paint).</extracomment>
        <translation>gpudesk</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/main_window.py" line="204"/>
        <source>A background task failed: {0}</source>
        <translation>后台任务失败：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/main_window.py" line="234"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/main_window.py" line="235"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/main_window.py" line="240"/>
        <source>Keep watching for &amp;alerts in the tray</source>
        <translation>在托盘中持续监视告警(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/main_window.py" line="244"/>
        <source>Alert &amp;delivery…</source>
        <translation>告警投递(&amp;D)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/main_window.py" line="248"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/main_window.py" line="257"/>
        <source>&amp;About gpudesk and data sources…</source>
        <translation>关于 gpudesk 和数据来源(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/main_window.py" line="295"/>
        <source>gpudesk keeps watching for alerts in the tray; quit it from the tray menu or File &gt; Quit.</source>
        <translation>gpudesk 会在托盘中继续监视告警；可从托盘菜单或“文件 &gt; 退出”退出。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/tabs.py" line="11"/>
        <source>Plan</source>
        <translation>规划</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/tabs.py" line="12"/>
        <source>Catalog</source>
        <translation>目录</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/tabs.py" line="13"/>
        <source>Monitor</source>
        <translation>监控</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/tabs.py" line="14"/>
        <source>OOM doctor</source>
        <translation>OOM 诊断</translation>
    </message>
</context>
<context>
    <name>MemoryBars</name>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="337"/>
        <source>not in the input (missing: %1)</source>
        <translation>输入中没有（缺少：%1）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="339"/>
        <source>not reported by the source</source>
        <translation>来源未报告</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="342"/>
        <source>total</source>
        <translation>总量</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="343"/>
        <source>allocated</source>
        <translation>已分配</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="344"/>
        <source>reserved</source>
        <translation>已保留</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="345"/>
        <source>%1 used by process</source>
        <translation>进程占用 %1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="373"/>
        <source>rocm-smi</source>
        <translation>rocm-smi</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="375"/>
        <source>Metal driver</source>
        <translation>Metal 驱动</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="376"/>
        <source>NVML</source>
        <translation>NVML</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="347"/>
        <source>free</source>
        <translation>空闲</translation>
    </message>
</context>
<context>
    <name>MemoryBarsPanel</name>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="179"/>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="250"/>
        <source>No memory figures yet: paste a message or pick a target.</source>
        <extracomment>The accelerator platform (&quot;cuda&quot;, &quot;rocm&quot;, &quot;mps&quot;; None: unsaid), for the name of the per-process tool. The report&apos;s framework (&quot;pytorch&quot;, &quot;tensorflow&quot;, &quot;unknown&quot;, ...; None: unsaid), for the name of the memory the process holds outside its allocator.</extracomment>
        <translation>还没有显存数据：请粘贴一条消息或选择一个目标。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="194"/>
        <source>Allocated (live tensors)</source>
        <translation>已分配（活动张量）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="195"/>
        <source>Reserved but unallocated (allocator cache)</source>
        <translation>已保留但未分配（分配器缓存）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="191"/>
        <source>Non-PyTorch in process (CUDA context, NCCL, libraries)</source>
        <translation>进程内非 PyTorch 部分（CUDA 上下文、NCCL、库）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="197"/>
        <source>This process per NVML (allocator figures unknown)</source>
        <translation>NVML 统计的本进程用量（分配器数据未知）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="198"/>
        <source>Other processes</source>
        <translation>其他进程</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="199"/>
        <source>Unattributed (driver, display, processes not listed)</source>
        <translation>未归属（驱动、显示、未列出的进程）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="200"/>
        <source>Free</source>
        <translation>空闲</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="255"/>
        <source>This input gives no per-GPU memory figures (total, allocated, free); the causes below come from the message itself.</source>
        <translation>这段输入没有逐 GPU 的显存数字（总量、已分配、空闲）；下面的原因来自消息本身。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="295"/>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="295"/>
        <source>GPU (index not given)</source>
        <translation>GPU（未给出编号）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="299"/>
        <source>%1%2 · total memory unknown (not in the input); the bar spans the parts shown</source>
        <translation>%1%2 · 总显存未知（输入中没有）；条形图按所示各部分绘制</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="301"/>
        <source>%1%2 · %3 total</source>
        <translation>%1%2 · 共 %3</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="307"/>
        <source>allocated %1</source>
        <translation>已分配 %1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="308"/>
        <source>reserved %1</source>
        <translation>已保留 %1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="309"/>
        <source>%1 used by process %2</source>
        <translation>进程 %2 占用 %1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="311"/>
        <source>other processes %1</source>
        <translation>其他进程 %1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="312"/>
        <source>free %1</source>
        <translation>空闲 %1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/memory_bars.py" line="320"/>
        <source>%1 is N/A: %2</source>
        <translation>%1 为 N/A：%2</translation>
    </message>
</context>
<context>
    <name>MemoryBreakdownChart</name>
    <message>
        <location filename="../../gpudesk/ui/plan/memory_chart.py" line="156"/>
        <source>Drawing the chart…</source>
        <extracomment>Fixed colours for the usual part names; other names take the fallback cycle in order of appearance.</extracomment>
        <translation>正在绘制图表…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/memory_chart.py" line="187"/>
        <source>Memory per GPU (GiB)</source>
        <translation>每 GPU 显存 (GiB)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/memory_chart.py" line="219"/>
        <source>Usable capacity</source>
        <translation>可用容量</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/memory_chart.py" line="219"/>
        <source>Safe line</source>
        <translation>安全线</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/memory_chart.py" line="296"/>
        <source>{0}: {1} per GPU (no safe line known)</source>
        <translation>{0}：每 GPU {1}（安全线未知）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/memory_chart.py" line="300"/>
        <source>{0}: {1} per GPU, {2} under the safe line of {3}</source>
        <translation>{0}：每 GPU {1}，比安全线 {3} 低 {2}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/memory_chart.py" line="302"/>
        <source>{0}: {1} per GPU, {2} OVER the safe line of {3}</source>
        <translation>{0}：每 GPU {1}，超出安全线 {3} 达 {2}</translation>
    </message>
</context>
<context>
    <name>MessageBar</name>
    <message>
        <location filename="../../gpudesk/ui/message_bar.py" line="36"/>
        <location filename="../../gpudesk/ui/message_bar.py" line="37"/>
        <source>Dismiss</source>
        <translation>关闭此消息</translation>
    </message>
</context>
<context>
    <name>MethodChoice</name>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="120"/>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="194"/>
        <source>Select a process above to look inside it.</source>
        <translation>在上方选择一个进程以查看其内部。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="142"/>
        <source>Agent without injection: add this line to the script, then probe again:
%1</source>
        <translation>无注入的代理：将这一行加入脚本，然后再次探测：
%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="149"/>
        <source>Copy line</source>
        <translation>复制该行</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="150"/>
        <source>Copy the agent line to the clipboard</source>
        <translation>将代理代码行复制到剪贴板</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="155"/>
        <source>Reset the peak (max_memory_allocated) after reading it</source>
        <translation>读取后重置峰值（max_memory_allocated）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="157"/>
        <source>Calls torch.cuda.reset_peak_memory_stats on the devices read; changes the process&apos;s own metrics</source>
        <translation>对所读取的设备调用 torch.cuda.reset_peak_memory_stats；会改变进程自身的指标</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="159"/>
        <source>Allow a process of another user (needs privileges)</source>
        <translation>允许其他用户的进程（需要权限）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="165"/>
        <source>Read the PyTorch allocator&apos;s figures inside the process</source>
        <translation>在进程内部读取 PyTorch 分配器的数据</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="164"/>
        <source>Pro&amp;be process</source>
        <translation>探测进程(&amp;B)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="167"/>
        <source>Gather e&amp;vidence only</source>
        <translation>仅收集证据(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="169"/>
        <source>NVML memory per process, other processes, host memory and workers; nothing is injected</source>
        <translation>每进程的 NVML 显存、其他进程、主机内存和工作进程；不注入任何内容</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="172"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="173"/>
        <source>Stop waiting; the target keeps running unharmed</source>
        <translation>停止等待；目标进程继续运行，不受影响</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="198"/>
        <source>Process %1 %2: checking which methods can be used …</source>
        <translation>进程 %1 %2：正在检查可用的方法 …</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="234"/>
        <source>not offered for this process</source>
        <translation>此进程不提供</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="237"/>
        <source>can be used</source>
        <translation>可以使用</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="246"/>
        <source>Process %1 %2</source>
        <translation>进程 %1 %2</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="248"/>
        <source>Process %1 %2: no way to look inside it here (see the reasons); evidence can still be gathered.</source>
        <translation>进程 %1 %2：此处无法查看其内部（见原因）；仍可收集证据。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="258"/>
        <source>Process %1: cannot check the methods: %2</source>
        <translation>进程 %1：无法检查可用方法：%2</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="274"/>
        <source>gpudesk will run its probe inside process %1 %2 with %3.

The probe reads torch.cuda memory figures for the devices the process already uses; it does not import torch, does not initialise CUDA and writes its answer to a folder only you can read.%4

Run it?</source>
        <translation>gpudesk 将使用 %3 在进程 %1 %2 中运行探针。

探针读取该进程已在使用的设备的 torch.cuda 显存数据；它不导入 torch，不初始化 CUDA，并将结果写入只有您能读取的文件夹。%4

是否运行？</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="283"/>
        <source>
It also resets the peak counter.</source>
        <translation>
它还会重置峰值计数器。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="289"/>
        <source>gdb stops the process while it injects the probe; a process in a delicate state can crash.</source>
        <translation>gdb 在注入探针时会暂停进程；处于不稳定状态的进程可能崩溃。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="292"/>
        <source>The probe that will run (gpudesk/oom/probe_script.py):

</source>
        <translation>将运行的探针（gpudesk/oom/probe_script.py）：

</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="294"/>
        <source>The probe&apos;s source is not available in this build: %1</source>
        <translation>此版本中没有探针的源代码：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="295"/>
        <source>Inject the probe?</source>
        <translation>注入探针？</translation>
    </message>
</context>
<context>
    <name>Monitor</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/controller.py" line="407"/>
        <source>{what} failed: {e}</source>
        <translation>{what}失败：{e}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="74"/>
        <source>Reading {p}…</source>
        <translation>正在读取 {p}…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="76"/>
        <source>Importing the dmon log</source>
        <translation>导入 dmon 日志</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="98"/>
        <source>Give the Prometheus server&apos;s URL to watch a fleet.</source>
        <translation>请输入 Prometheus 服务器的 URL 以监控集群。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="114"/>
        <source>Live dmon stream: {c}</source>
        <translation>实时 dmon 数据流：{c}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="121"/>
        <source>No demo recording is bundled with this installation.</source>
        <translation>此安装未附带演示录制。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="123"/>
        <source>Opening the demo…</source>
        <translation>正在打开演示…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="124"/>
        <source>Opening the demo</source>
        <translation>打开演示</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="130"/>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="147"/>
        <source>Opening recording #{n}…</source>
        <translation>正在打开录制 #{n}…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="132"/>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="149"/>
        <source>Opening the recording</source>
        <translation>打开录制</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="139"/>
        <source>Replay at {s:g}x: {t}</source>
        <translation>以 {s:g} 倍速回放：{t}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="240"/>
        <source>Open a saved recording first (Recordings sub-tab): a burn-in report reads a recording from your database. An imported dmon log can be stored with &apos;Save as recording&apos;.</source>
        <translation>请先打开一个已保存的录制（“录制”子标签页）：拷机测试报告读取数据库中的录制。导入的 dmon 日志可通过“保存为录制”存入数据库。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="249"/>
        <source>Making the burn-in report…</source>
        <translation>正在生成拷机测试报告…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="266"/>
        <source>The burn-in report</source>
        <translation>拷机测试报告</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="322"/>
        <source>Saved as recording #{n}.</source>
        <translation>已保存为录制 #{n}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="325"/>
        <source>Saving the recording</source>
        <translation>保存录制</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="335"/>
        <source>Export samples as CSV</source>
        <translation>将样本导出为 CSV</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="336"/>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="349"/>
        <source>Exported {p}.</source>
        <translation>已导出 {p}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/actions.py" line="350"/>
        <source>Exporting CSV</source>
        <translation>导出 CSV</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="59"/>
        <source>one sampling round at {t}</source>
        <translation>{t} 的一轮采样</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="81"/>
        <source>GPU utilization</source>
        <translation>GPU 利用率</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="82"/>
        <source>Memory-controller utilization</source>
        <translation>显存控制器利用率</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="83"/>
        <source>Memory used</source>
        <translation>已用显存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="84"/>
        <source>Memory total</source>
        <translation>显存总量</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="86"/>
        <source>PCIe RX</source>
        <translation>PCIe RX</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="87"/>
        <source>PCIe TX</source>
        <translation>PCIe TX</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="88"/>
        <source>Power draw</source>
        <translation>功耗</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="89"/>
        <source>Power limit</source>
        <translation>功耗上限</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="90"/>
        <source>GPU temperature</source>
        <translation>GPU 温度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="91"/>
        <source>Memory temperature</source>
        <translation>显存温度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="92"/>
        <source>SM clock</source>
        <translation>SM 时钟</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="93"/>
        <source>Memory clock</source>
        <translation>显存时钟</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="94"/>
        <source>Encoder utilization</source>
        <translation>编码器利用率</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="95"/>
        <source>Decoder utilization</source>
        <translation>解码器利用率</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="97"/>
        <source>SM active</source>
        <translation>SM 活跃度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="98"/>
        <source>Tensor pipe active</source>
        <translation>Tensor 流水线活跃度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/display.py" line="111"/>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="65"/>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="224"/>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="94"/>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="97"/>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="99"/>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="100"/>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="102"/>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="50"/>
        <source>N/A</source>
        <translation>不可用</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="159"/>
        <source>not reported by this source</source>
        <translation>此数据源未报告</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="202"/>
        <source>lost</source>
        <translation>已丢失</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="205"/>
        <source>critical</source>
        <translation>严重</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="207"/>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="208"/>
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="221"/>
        <source>{name}
UUID: {uuid}
PCI bus: {bus}</source>
        <translation>{name}
UUID：{uuid}
PCI 总线：{bus}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="222"/>
        <source>unknown model</source>
        <translation>未知型号</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="223"/>
        <source>N/A (not reported by this source)</source>
        <translation>不可用（此数据源未报告）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="226"/>
        <source>MIG enabled: {n} instances (utilization is not reported on MIG)</source>
        <translation>已启用 MIG：{n} 个实例（MIG 下不报告利用率）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="230"/>
        <source>MIG capable, disabled</source>
        <translation>支持 MIG，未启用</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="236"/>
        <source>Findings of the last analysis:</source>
        <translation>上次分析的发现：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="238"/>
        <source>Readings arrive normally.</source>
        <translation>读数正常到达。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="240"/>
        <source>link unknown</source>
        <translation>链路未知</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="242"/>
        <source>Link: {t}</source>
        <translation>链路：{t}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="243"/>
        <source>Throughput: {v}</source>
        <translation>吞吐量：{v}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="245"/>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="252"/>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="117"/>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="120"/>
        <source>N/A: {r}</source>
        <translation>不可用：{r}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/gpu_table.py" line="248"/>
        <source>N/A share: the link&apos;s generation and width are unknown</source>
        <translation>占比不可用：链路的代数和宽度未知</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/import_dialog.py" line="232"/>
        <source>entered by hand</source>
        <translation>手动输入</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="15"/>
        <source>The NVML Python bindings are not installed</source>
        <translation>未安装 NVML 的 Python 绑定</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="16"/>
        <source>No NVIDIA driver found on this machine</source>
        <translation>此计算机上未找到 NVIDIA 驱动</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="17"/>
        <source>The NVIDIA driver is not loaded</source>
        <translation>NVIDIA 驱动未加载</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="18"/>
        <source>NVIDIA driver/library version mismatch</source>
        <translation>NVIDIA 驱动与库版本不匹配</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="19"/>
        <source>No permission to use NVML</source>
        <translation>没有使用 NVML 的权限</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="20"/>
        <source>No NVIDIA GPU found</source>
        <translation>未找到 NVIDIA GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="21"/>
        <source>Live GPU monitoring is not available</source>
        <translation>无法进行实时 GPU 监控</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/plots.py" line="349"/>
        <source>SM clock (solid) and memory clock (dashed)</source>
        <translation>SM 时钟（实线）和显存时钟（虚线）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/plots.py" line="419"/>
        <source>PCIe RX (host to GPU)</source>
        <translation>PCIe RX（主机到 GPU）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/plots.py" line="421"/>
        <source>PCIe TX (GPU to host)</source>
        <translation>PCIe TX（GPU 到主机）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/plots.py" line="423"/>
        <source>each GPU&apos;s own link</source>
        <translation>各 GPU 自身的链路</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/plots.py" line="424"/>
        <source>{d}: share of link, {link}</source>
        <translation>{d}：占链路比例，{link}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/plots.py" line="426"/>
        <source>% of link</source>
        <translation>占链路 %</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/plots.py" line="428"/>
        <source>{d}: link unknown, shown in MB/s</source>
        <translation>{d}：链路未知，以 MB/s 显示</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="112"/>
        <source>Peak {peak} over {n} readings since {since}.</source>
        <translation>自 {since} 起 {n} 次读数中的峰值为 {peak}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="118"/>
        <source>NVML did not report it</source>
        <translation>NVML 未报告</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="121"/>
        <source>the process could not be looked up</source>
        <translation>无法查询该进程</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="125"/>
        <source>This PID does not exist here (host PID seen from a container?). Run the container with --pid=host to see the process.</source>
        <translation>此 PID 在这里不存在（是从容器中看到的主机 PID 吗？）。请使用 --pid=host 运行容器以查看该进程。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="63"/>
        <source>{t} (imported; the log has no dates)</source>
        <translation>{t}（导入；日志中没有日期）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="68"/>
        <source>N/A (no samples)</source>
        <translation>不可用（没有样本）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="70"/>
        <source> (interrupted)</source>
        <translation>（已中断）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/sources.py" line="113"/>
        <source>The demo is a generated example, not a real capture: {minutes} minutes of a {gpus}-GPU training run in nvidia-smi dmon format, with an input stall and one GPU that overheats.</source>
        <translation>演示是生成的示例，不是真实采集：{gpus} 块 GPU 训练运行的 {minutes} 分钟 nvidia-smi dmon 格式数据，含一次数据供给停顿和一块过热的 GPU。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/sources.py" line="135"/>
        <source>Demo</source>
        <translation>演示</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/controller.py" line="51"/>
        <source>assumed {t}</source>
        <translation>假定 {t}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_control.py" line="102"/>
        <source>Fleet (Prometheus) {url}, last {h:g} h</source>
        <translation>集群（Prometheus）{url}，最近 {h:g} h</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_control.py" line="133"/>
        <source>Fleet refresh failed: {m}</source>
        <translation>集群刷新失败：{m}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/fleet_control.py" line="146"/>
        <source>{gpu} from {fleet}</source>
        <translation>{fleet} 中的 {gpu}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="69"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="69"/>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="76"/>
        <source>from the start</source>
        <translation>从开始起</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/findings_list.py" line="101"/>
        <source>spans: {n} (listed on the timeline)</source>
        <translation>时段：{n} 个（列在时间线上）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/empty_notes.py" line="57"/>
        <source>No {field}: {reason}</source>
        <translation>没有{field}：{reason}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/empty_notes.py" line="58"/>
        <source>This log has no column for {field}.</source>
        <translation>此日志没有{field}列。</translation>
    </message>
</context>
<context>
    <name>MonitorTab</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/plots.py" line="49"/>
        <source>1 min</source>
        <translation>1 分钟</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/plots.py" line="50"/>
        <source>5 min</source>
        <translation>5 分钟</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/plots.py" line="51"/>
        <source>15 min</source>
        <translation>15 分钟</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/plots.py" line="52"/>
        <source>1 h</source>
        <translation>1 小时</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/plots.py" line="53"/>
        <source>6 h</source>
        <translation>6 小时</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/plots.py" line="54"/>
        <source>24 h</source>
        <translation>24 小时</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/plots.py" line="55"/>
        <source>72 h</source>
        <translation>72 小时</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/plots.py" line="56"/>
        <source>Whole run</source>
        <translation>整个运行</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/tab.py" line="51"/>
        <source>Monitor</source>
        <translation>监控</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/tab.py" line="88"/>
        <source>Plots</source>
        <translation>曲线图</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/tab.py" line="89"/>
        <source>Heat map</source>
        <translation>热力图</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/tab.py" line="90"/>
        <source>Statistics</source>
        <translation>统计</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/tab.py" line="91"/>
        <source>Findings</source>
        <translation>发现</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/tab.py" line="92"/>
        <source>Processes</source>
        <translation>进程</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/tab.py" line="93"/>
        <source>Recordings</source>
        <translation>录制</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/tab.py" line="94"/>
        <source>Fleet</source>
        <translation>集群</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/controller.py" line="249"/>
        <source>Opening the source…</source>
        <translation>正在打开数据源…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/controller.py" line="273"/>
        <source>Live NVML: {s}</source>
        <translation>实时 NVML：{s}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/controller.py" line="341"/>
        <source>The source has ended: {s}. {why}</source>
        <translation>数据源已结束：{s}。{why}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/controller.py" line="385"/>
        <source>Watching a fleet: open a GPU in the Fleet tab to see its plots, statistics and findings.</source>
        <translation>正在监控集群：在“集群”子标签页中打开一块 GPU 以查看其曲线图、统计和发现。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/tab.py" line="175"/>
        <source>This source carries no process list (only live NVML does).</source>
        <translation>此数据源不含进程列表（只有实时 NVML 才有）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/controller.py" line="311"/>
        <source>GPU {i} stopped answering: {r}. The other GPUs are still monitored.</source>
        <translation>GPU {i} 停止响应：{r}。其他 GPU 仍在监控中。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/controller.py" line="344"/>
        <source>The source has ended: {s}</source>
        <translation>数据源已结束：{s}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/tab.py" line="212"/>
        <source>Live monitoring is not available here (details below).</source>
        <translation>此处无法进行实时监控（详情见下文）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/tab.py" line="216"/>
        <source>A file or a recording carries no process list.</source>
        <translation>文件或录制不含进程列表。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/tab.py" line="229"/>
        <location filename="../../gpudesk/ui/monitor/tab.py" line="245"/>
        <source>Could not write {p}.</source>
        <translation>无法写入 {p}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/controller.py" line="104"/>
        <source>Start live monitoring or a dmon stream first; an imported log is stored with &apos;Save as recording&apos;.</source>
        <translation>请先开始实时监控或 dmon 数据流；导入的日志请用“保存为录制”存储。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="114"/>
        <source>■ Stop recording #{n}</source>
        <translation>■ 停止录制 #{n}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/controller.py" line="118"/>
        <source>Recording #{n} started.</source>
        <translation>录制 #{n} 已开始。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="112"/>
        <source>● &amp;Record</source>
        <translation>● 录制(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/controller.py" line="123"/>
        <source>Recording #{n} saved.</source>
        <translation>录制 #{n} 已保存。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/tab.py" line="241"/>
        <source>Export plots as PNG</source>
        <translation>将曲线图导出为 PNG</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/tab.py" line="241"/>
        <source>PNG images (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
</context>
<context>
    <name>MonitorToolbar</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="29"/>
        <source>No source.</source>
        <translation>无数据源。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="32"/>
        <source>&amp;Live (NVML)</source>
        <translation>实时 (NVML)(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="33"/>
        <source>Monitor the GPUs of this machine through NVML, every second.</source>
        <translation>通过 NVML 每秒监控本机的 GPU。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="34"/>
        <source>&amp;Import dmon…</source>
        <translation>导入 dmon(&amp;I)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="35"/>
        <source>Import an nvidia-smi dmon log, or watch a live dmon stream.</source>
        <translation>导入 nvidia-smi dmon 日志，或查看实时 dmon 数据流。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="36"/>
        <source>Fleet (Pr&amp;ometheus)…</source>
        <translation>集群（Prometheus）(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="37"/>
        <source>Watch the GPUs of many nodes through a Prometheus server that scrapes NVIDIA&apos;s DCGM exporter (refreshed every 15 s).</source>
        <translation>通过抓取 NVIDIA DCGM exporter 的 Prometheus 服务器监控多个节点的 GPU（每 15 s 刷新一次）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="39"/>
        <source>&amp;Demo</source>
        <translation>演示(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="40"/>
        <source>No demo recording is bundled.</source>
        <translation>未附带演示录制。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="46"/>
        <source>Time window shown while following the newest samples</source>
        <translation>跟随最新样本时显示的时间窗口</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="47"/>
        <source>&amp;Pause</source>
        <translation>暂停(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="49"/>
        <source>Stop following the newest samples (recording goes on). Panning or zooming a plot pauses too; press again to follow.</source>
        <translation>停止跟随最新样本（录制继续）。平移或缩放曲线图也会暂停；再按一次即恢复跟随。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="52"/>
        <source>Recording notes (model, batch size, data loader…)</source>
        <translation>录制备注（模型、批大小、数据加载器…）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="53"/>
        <source>● &amp;Record</source>
        <translation>● 录制(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="55"/>
        <source>Record the live samples into your gpudesk database.</source>
        <translation>将实时样本录制到你的 gpudesk 数据库中。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="56"/>
        <source>&amp;Save as recording</source>
        <translation>保存为录制(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="57"/>
        <source>Store the imported dmon log as a recording in your database.</source>
        <translation>将导入的 dmon 日志作为录制保存到你的数据库中。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="58"/>
        <source>Export &amp;PNG…</source>
        <translation>导出 PNG(&amp;P)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="59"/>
        <source>Export &amp;CSV…</source>
        <translation>导出 CSV(&amp;C)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="60"/>
        <source>Export the selected span (or everything when no span is shown).</source>
        <translation>导出所选区间（未显示区间时导出全部）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/toolbar.py" line="68"/>
        <source>&amp;Window:</source>
        <translation>时间窗口(&amp;W)：</translation>
    </message>
</context>
<context>
    <name>NoGpuPanel</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="52"/>
        <source>The rest of gpudesk works without a GPU. From here you can still:</source>
        <translation>gpudesk 的其余功能无需 GPU 即可使用。在这里你仍然可以：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="54"/>
        <source>&amp;Import a dmon log…</source>
        <translation>导入 dmon 日志(&amp;I)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="56"/>
        <source>Open a text log of &apos;nvidia-smi dmon&apos; (for example &apos;nvidia-smi dmon -s umt -o DT &gt; run.log&apos; on the GPU server), or watch a live dmon stream from a command such as &apos;ssh node nvidia-smi dmon -s umt&apos;.</source>
        <translation>打开 &apos;nvidia-smi dmon&apos; 的文本日志（例如在 GPU 服务器上运行 &apos;nvidia-smi dmon -s umt -o DT &gt; run.log&apos;），或查看来自命令（如 &apos;ssh node nvidia-smi dmon -s umt&apos;）的实时 dmon 数据流。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="58"/>
        <source>&amp;Open a recording…</source>
        <translation>打开录制(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="59"/>
        <source>Pick one of your saved recordings.</source>
        <translation>从你保存的录制中选择一个。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="60"/>
        <source>Open the &amp;demo recording</source>
        <translation>打开演示录制(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="61"/>
        <source>&amp;Retry NVML</source>
        <translation>重试 NVML(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="62"/>
        <source>Try to open NVML again (after loading the driver or rebooting).</source>
        <translation>再次尝试打开 NVML（在加载驱动或重启之后）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="98"/>
        <source>NVML error: {e}</source>
        <translation>NVML 错误：{e}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="100"/>
        <source>driver {v}</source>
        <translation>驱动 {v}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="102"/>
        <source>NVML {v}</source>
        <translation>NVML {v}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/no_gpu_panel.py" line="109"/>
        <source>No demo recording is bundled with this installation.</source>
        <translation>此安装未附带演示录制。</translation>
    </message>
</context>
<context>
    <name>OomAccuracyDialog</name>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="134"/>
        <source>How accurate is the OOM doctor?</source>
        <translation>OOM 诊断的准确度如何？</translation>
    </message>
</context>
<context>
    <name>OomAccuracyLink</name>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="153"/>
        <source>How accurate is this?</source>
        <translation>准确度如何？</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="156"/>
        <source>The doctor&apos;s first cause checked against real messages, per framework and platform</source>
        <translation>按框架和平台，用真实消息检验诊断给出的首要原因</translation>
    </message>
</context>
<context>
    <name>OomAccuracyView</name>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="53"/>
        <source>Checking the doctor against real messages…</source>
        <translation>正在用真实消息检验诊断…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="63"/>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="65"/>
        <source>Case set</source>
        <translation>案例集</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="63"/>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="65"/>
        <source>Family</source>
        <translation>类别</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="63"/>
        <source>Right</source>
        <translation>正确</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="63"/>
        <source>Cases</source>
        <translation>案例数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="64"/>
        <source>Share</source>
        <translation>比例</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="64"/>
        <source>First-cause accuracy by family</source>
        <translation>按类别的首要原因准确度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="65"/>
        <source>Recorded cause</source>
        <translation>记录的原因</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="66"/>
        <source>Doctor&apos;s first cause</source>
        <translation>诊断的首要原因</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="66"/>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="67"/>
        <source>Every case and the doctor&apos;s first cause</source>
        <translation>每个案例及诊断的首要原因</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="71"/>
        <source>By family</source>
        <translation>按类别</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="72"/>
        <source>Every case</source>
        <translation>全部案例</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="80"/>
        <source>The accuracy check could not run: %1</source>
        <translation>无法运行准确度检查：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="84"/>
        <source>The first cause is the one the public thread established in %1 of %2 real messages (%3 %).</source>
        <translation>在 %2 条真实消息中，有 %1 条的首要原因与公开讨论确认的原因一致（%3 %）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="91"/>
        <source>Set &apos;%1&apos;: %2 of %3 right.</source>
        <translation>案例集“%1”：%3 条中 %2 条正确。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="95"/>
        <source>Not a memory-capacity problem: said so, with the check that tells it apart, in %1 of %2 such messages.</source>
        <translation>不是显存容量问题：在 %2 条此类消息中，有 %1 条如此判断并给出了区分它的检查。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/accuracy_view.py" line="97"/>
        <source>Counted strictly: a case is right only when the first cause is the recorded one; families with fewer than 5 cases are shown in grey.</source>
        <translation>严格计数：只有首要原因与记录的原因一致才算正确；少于 5 个案例的类别以灰色显示。</translation>
    </message>
</context>
<context>
    <name>OomMethod</name>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="57"/>
        <source>Agent already in the process (no injection)</source>
        <translation>进程中已有代理（无需注入）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="58"/>
        <source>sys.remote_exec (Python 3.14 or newer)</source>
        <translation>sys.remote_exec（Python 3.14 或更高版本）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/method_choice.py" line="59"/>
        <source>gdb injection (older CPython, Linux)</source>
        <translation>gdb 注入（较旧的 CPython，Linux）</translation>
    </message>
</context>
<context>
    <name>OomResults</name>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="49"/>
        <source>N/A</source>
        <translation>N/A</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="51"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="51"/>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="61"/>
        <source>%1 (%2 bytes)</source>
        <translation>%1（%2 字节）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="68"/>
        <source>%1 tokens</source>
        <translation>%1 个 token</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="79"/>
        <source>OOM diagnosis: framework %1, message shape %2</source>
        <translation>OOM 诊断：框架 %1，消息形式 %2</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="84"/>
        <source>PyTorch message era: %1</source>
        <translation>PyTorch 消息版本：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="87"/>
        <source>Missing from the input: %1</source>
        <translation>输入中缺少：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="92"/>
        <source>Parsed values:</source>
        <translation>解析出的数值：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="105"/>
        <source>confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="110"/>
        <source>Evidence:</source>
        <translation>证据：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="113"/>
        <source>Fix: %1</source>
        <translation>修复：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="117"/>
        <source>Check: %1</source>
        <translation>检查：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="147"/>
        <source>Key in the JSON report: %1</source>
        <translation>JSON 报告中的键：%1</translation>
    </message>
</context>
<context>
    <name>OomTab</name>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="40"/>
        <source>OOM doctor</source>
        <translation>OOM 诊断</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="49"/>
        <source>Dia&amp;gnosis</source>
        <translation>诊断(&amp;G)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="50"/>
        <source>Live &amp;memory</source>
        <translation>实时显存(&amp;M)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="51"/>
        <source>Memory s&amp;napshot</source>
        <translation>显存快照(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="65"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="66"/>
        <source>Stop waiting for the running job; a probed process keeps running</source>
        <translation>停止等待正在运行的作业；被探测的进程继续运行</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/controller.py" line="101"/>
        <source>Diagnosing %1 …</source>
        <translation>正在诊断%1 …</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/controller.py" line="101"/>
        <source>the text</source>
        <translation>该文本</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/controller.py" line="102"/>
        <location filename="../../gpudesk/ui/oom/controller.py" line="162"/>
        <source>pasted text</source>
        <translation>粘贴的文本</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/controller.py" line="107"/>
        <source>Probing process %1 with %2 (up to %3 s) …</source>
        <translation>正在用 %2 探测进程 %1（最长 %3 秒）…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/controller.py" line="116"/>
        <source>process %1 (%2)</source>
        <translation>进程 %1（%2）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/controller.py" line="122"/>
        <source>Gathering evidence about process %1 for %2 s …</source>
        <translation>正在收集进程 %1 的证据，用时 %2 秒 …</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/controller.py" line="129"/>
        <source>process %1 (evidence)</source>
        <translation>进程 %1（证据）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="52"/>
        <source>Histor&amp;y</source>
        <translation>历史(&amp;Y)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="122"/>
        <source>A job is already running; stop it first.</source>
        <translation>已有作业在运行；请先停止它。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="126"/>
        <source>Running: %1</source>
        <translation>运行中：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="130"/>
        <source>Job running …</source>
        <translation>作业运行中 …</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="139"/>
        <source>OOM</source>
        <translation>OOM</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="143"/>
        <source>No allocator samples from this job (see the line above).</source>
        <translation>此作业没有分配器样本（见上一行）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="144"/>
        <source>Job ended with exit status %1.</source>
        <translation>作业结束，退出状态 %1。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="150"/>
        <source>launched job</source>
        <translation>启动的作业</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="156"/>
        <source>Cannot launch: %1</source>
        <translation>无法启动：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="173"/>
        <source>Cancelled; the process was left running.</source>
        <translation>已取消；进程保持运行。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="178"/>
        <source>Diagnosed in %1 ms.</source>
        <translation>诊断用时 %1 毫秒。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/tab.py" line="198"/>
        <source>Saved job: %1</source>
        <translation>已保存的作业：%1</translation>
    </message>
</context>
<context>
    <name>OomTextInput</name>
    <message>
        <location filename="../../gpudesk/ui/oom/text_input.py" line="64"/>
        <source>the log</source>
        <translation>日志</translation>
    </message>
</context>
<context>
    <name>PlanCharts</name>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="56"/>
        <source>{0}× {1} (runs on {2})</source>
        <translation>{0}× {1}（使用其中 {2} 块）</translation>
    </message>
</context>
<context>
    <name>PlanFields</name>
    <message>
        <location filename="../../gpudesk/ui/plan/fields.py" line="89"/>
        <source>{0}: a comma only groups thousands (20,000,000); write decimals with a point, got “{1}”</source>
        <translation>{0}：逗号只用于千位分隔（20,000,000）；小数请用小数点，收到的是“{1}”</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/fields.py" line="95"/>
        <location filename="../../gpudesk/ui/plan/fields.py" line="220"/>
        <location filename="../../gpudesk/ui/plan/fields.py" line="225"/>
        <source>{0}: a value is required</source>
        <translation>{0}：必须填写一个值</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/fields.py" line="104"/>
        <source>{0}: must be a number, got “{1}”</source>
        <translation>{0}：必须是数字，收到的是“{1}”</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/fields.py" line="106"/>
        <source>{0}: must be a finite number, got “{1}”</source>
        <translation>{0}：必须是有限数值，收到的是“{1}”</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/fields.py" line="108"/>
        <source>{0}: must be a whole number, got {1}</source>
        <translation>{0}：必须是整数，收到的是 {1}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/fields.py" line="112"/>
        <source>{0}: must be more than {1}, got {2}</source>
        <translation>{0}：必须大于 {1}，收到的是 {2}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/fields.py" line="114"/>
        <source>{0}: must be at least {1}, got {2}</source>
        <translation>{0}：必须至少为 {1}，收到的是 {2}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/fields.py" line="117"/>
        <source>{0}: must be at most {1}, got {2}</source>
        <translation>{0}：必须至多为 {1}，收到的是 {2}</translation>
    </message>
</context>
<context>
    <name>PlanProblems</name>
    <message>
        <location filename="../../gpudesk/ui/plan/problem_text.py" line="46"/>
        <source>{0}: {1}</source>
        <comment>a form field&apos;s caption, then what is wrong with its answer</comment>
        <translation>{0}：{1}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/problem_text.py" line="56"/>
        <source>({0}) {1}</source>
        <comment>a problem&apos;s number, then the problem</comment>
        <translation>({0}) {1}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/problem_text.py" line="58"/>
        <source>; </source>
        <comment>the separator between numbered problems</comment>
        <translation>；</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/problem_text.py" line="60"/>
        <source>{0} problems: {1}.</source>
        <comment>how many problems, then the numbered list</comment>
        <translation>{0} 个问题：{1}。</translation>
    </message>
</context>
<context>
    <name>PlanQuestions</name>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="138"/>
        <source>1. Data and I/O</source>
        <translation>1. 数据与 I/O</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="139"/>
        <source>How much data, how big is a sample, and where does loading stall?</source>
        <translation>数据有多少，单个样本多大，数据加载在哪里卡住？</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="141"/>
        <source>Dataset size</source>
        <translation>数据集大小</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="142"/>
        <source>Total size on storage, decimal terabytes (1 TB = 10^12 bytes).</source>
        <translation>存储上的总大小，十进制 TB（1 TB = 10^12 字节）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="143"/>
        <source>Samples</source>
        <translation>样本数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="144"/>
        <source>Training samples (pairs, images, volumes, sequences); 20,000,000 or 20000000. Needed for training.</source>
        <translation>训练样本数（样本对、图像、体数据、序列）；可写 20,000,000 或 20000000。训练时必填。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="145"/>
        <source>Average sample size</source>
        <translation>平均样本大小</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="146"/>
        <source>Bytes read per sample from storage, decimal megabytes.</source>
        <translation>每个样本从存储读取的字节数，十进制 MB。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="147"/>
        <source>Modality</source>
        <translation>模态</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="148"/>
        <source>Video and 3D volumes make the workload &apos;multimodal / long-sequence&apos;.</source>
        <translation>视频和 3D 体数据会使工作负载归为“多模态 / 长序列”。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="149"/>
        <source>Epochs</source>
        <translation>轮数（epoch）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="149"/>
        <source>Passes over the data.</source>
        <translation>遍历数据的次数。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="150"/>
        <source>Storage read throughput</source>
        <translation>存储读取吞吐量</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="151"/>
        <source>What the storage delivers to this machine (decimal GB/s); empty when not known.</source>
        <translation>存储向本机提供的吞吐量（十进制 GB/s）；未知时留空。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="152"/>
        <source>Decoding on</source>
        <translation>解码位置</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="153"/>
        <source>cpu: the DataLoader decodes; gpu: DALI / nvJPEG decoding on the GPU (the article&apos;s fix that halved epoch time).</source>
        <translation>cpu：由 DataLoader 解码；gpu：在 GPU 上用 DALI / nvJPEG 解码（文中使每轮时间减半的改进）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="154"/>
        <source>Measured decoder throughput</source>
        <translation>实测解码吞吐量</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="155"/>
        <source>Empty: the planner&apos;s default for the decode path.</source>
        <translation>留空：使用规划器对该解码路径的默认值。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="177"/>
        <source>(none: give a parameter count or a config.json)</source>
        <translation>（无：请给出参数量或 config.json）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="180"/>
        <source>2. Model and memory</source>
        <translation>2. 模型与显存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="181"/>
        <source>Which model, trained how, and where does memory peak?</source>
        <translation>用什么模型，怎样训练，显存峰值出现在哪里？</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="183"/>
        <source>Catalog model</source>
        <translation>目录中的模型</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="184"/>
        <source>A model from the catalog (exact shape). Give only one of catalog model, parameter count, config.json.</source>
        <translation>目录中的模型（结构精确）。目录模型、参数量、config.json 三者只填其一。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="185"/>
        <source>Parameter count</source>
        <translation>参数量</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="185"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="367"/>
        <source>billion</source>
        <translation>十亿</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="187"/>
        <source>When the model is not in the catalog: its size in billions (13), or with a suffix (350M, 1.3B); the shape is then inferred (flagged as a guess).</source>
        <translation>模型不在目录中时：以十亿为单位填写大小（13），或带后缀（350M、1.3B）；结构将被推断（标记为估计）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="189"/>
        <source>Hugging Face config.json</source>
        <translation>Hugging Face config.json</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="190"/>
        <source>Path of a local config.json (read offline; nothing is downloaded).</source>
        <translation>本地 config.json 的路径（离线读取，不下载任何内容）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="191"/>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="192"/>
        <source>train: full training or full fine-tune; lora / qlora: adapters; inference: serving.</source>
        <translation>train：完整训练或全参数微调；lora / qlora：适配器；inference：推理服务。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="193"/>
        <source>Training precision</source>
        <translation>训练精度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="194"/>
        <source>BF16 is the safe default (Ampere and newer): 16-bit compute over fp32 master weights, also what FSDP under Accelerate&apos;s bf16 mixed precision (HF Trainer --bf16) makes of a model loaded in bf16 (Accelerate 0.30 and later upcast the shards). bf16-pure: parameters, gradients and optimizer states all in bf16 (torchtune dtype bf16; HF Trainer without --bf16).</source>
        <translation>BF16 是稳妥的默认值（Ampere 及更新架构）：在 fp32 主权重之上做 16 位计算；以 bf16 加载的模型在 FSDP 下开启 Accelerate 的 bf16 混合精度（HF Trainer --bf16）时也是如此（Accelerate 0.30 及以后会把分片上转为 fp32）。bf16-pure：参数、梯度和优化器状态全部为 bf16（torchtune dtype bf16；不加 --bf16 的 HF Trainer）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="195"/>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="86"/>
        <source>states outside PyTorch&apos;s allocator</source>
        <translation>优化器状态位于 PyTorch 分配器之外</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="90"/>
        <source>with momentum: one state</source>
        <translation>带动量：一个状态</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="91"/>
        <source>momentum 0: no state</source>
        <translation>动量为 0：无状态</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="92"/>
        <source>one state for hidden matrices, AdamW for embeddings, head and norms</source>
        <translation>隐藏层矩阵一个状态，嵌入、输出头和归一化层用 AdamW</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="95"/>
        <source>ZeRO paper</source>
        <translation>ZeRO 论文</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="96"/>
        <source>Megatron/DeepSpeed</source>
        <translation>Megatron/DeepSpeed</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="97"/>
        <source>MT-NLG</source>
        <translation>MT-NLG</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="99"/>
        <source>, </source>
        <comment>between the names of a list</comment>
        <translation>、</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="105"/>
        <source>%1 (also %2; %3)</source>
        <translation>%1（亦作 %2；%3）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="107"/>
        <source>%1 (also %2)</source>
        <translation>%1（亦作 %2）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="109"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="118"/>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="119"/>
        <source>%1; or an accounting: %2.</source>
        <translation>%1；或按字节核算：%2。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="197"/>
        <source>Sequence length</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="197"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="198"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="200"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="340"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="370"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="371"/>
        <source>tokens</source>
        <translation>token</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="198"/>
        <source>Longest sample</source>
        <translation>最长样本</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="199"/>
        <source>Training with batches padded to their longest sample (no packing): the longest tokenised sample the run meets (over a full epoch, the dataset&apos;s longest). The peak batch is the shorter of it and the sequence length (the truncation cap); empty: batches reach the sequence length.</source>
        <translation>训练时每个批次填充到其中最长样本（不打包）：本次运行遇到的最长样本的 token 数（跑满一个 epoch 即数据集中最长的样本）。峰值批次取它与序列长度（截断上限）中较短者；留空：批次达到序列长度。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="200"/>
        <source>Decoder length</source>
        <translation>解码器长度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="201"/>
        <source>Full training of an encoder-decoder (T5, BART) whose targets are padded to their own length: the decoder&apos;s tokens; its layers, cross-attention and logits are sized at this length. Empty: the sequence length.</source>
        <translation>全量训练目标序列单独填充长度的编码器-解码器（T5、BART）：解码器的词元数；其各层、交叉注意力和 logits 按此长度计算。留空：与序列长度相同。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="202"/>
        <source>Micro-batch per GPU</source>
        <translation>每 GPU 微批大小</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="202"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="203"/>
        <source>samples</source>
        <translation>样本</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="203"/>
        <source>Global batch</source>
        <translation>全局批大小</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="204"/>
        <source>Empty: micro-batch x data-parallel GPUs.</source>
        <translation>留空：微批大小 × 数据并行 GPU 数。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="205"/>
        <source>Activation recomputation</source>
        <translation>激活重计算</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="206"/>
        <source>auto: the planner picks the cheapest setting that fits (Korthikanti et al. 2022).</source>
        <translation>auto：规划器选择放得下且代价最小的设置（Korthikanti 等，2022）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="207"/>
        <source>Recomputed layers per stage</source>
        <translation>每个流水线阶段重算的层数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="207"/>
        <source>layers</source>
        <translation>层</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="208"/>
        <source>With full recompute in full training: only this many layers of each pipeline stage (of the model without pipeline parallelism) are recomputed; the others keep every activation (Megatron-LM --recompute-method block --recompute-num-layers; torchtitan selective_ac_option k recomputes layers / k). Empty: all layers.</source>
        <translation>全量训练且重算设为 full 时：每个流水线阶段（无流水线并行时为整个模型）只重算这么多层，其余层保留全部激活（Megatron-LM --recompute-method block --recompute-num-layers；torchtitan selective_ac_option k 重算 层数 / k 层）。留空：所有层。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="209"/>
        <source>Recompute modules (comma-separated)</source>
        <translation>重计算模块（逗号分隔）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="210"/>
        <source>What selective recompute redoes in backward (Megatron-Core --recompute-modules): core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts. Empty: the framework&apos;s default set.</source>
        <translation>选择性重计算在反向传播中重新执行的部分（Megatron-Core --recompute-modules）：core_attn、moe_act、layernorm、mla_up_proj、mlp、moe、shared_experts。留空：使用框架的默认集合。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="211"/>
        <source>Multi-token prediction depths</source>
        <translation>多 token 预测（MTP）深度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="212"/>
        <source>MTP modules trained with the model (DeepSeek-V3; Megatron-Core --mtp-num-layers): each is one more transformer layer and output-head pass.</source>
        <translation>与模型一同训练的 MTP 模块（DeepSeek-V3；Megatron-Core --mtp-num-layers）：每个模块多一层 Transformer 和一次输出头计算。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="213"/>
        <source>FlashAttention</source>
        <translation>FlashAttention</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="214"/>
        <source>MoE token permutation</source>
        <translation>MoE 令牌重排</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="215"/>
        <source>framework default</source>
        <translation>框架默认</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="215"/>
        <source>fused kernels</source>
        <translation>融合内核</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="216"/>
        <source>unfused</source>
        <translation>不融合</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="217"/>
        <source>Megatron-Core --moe-permute-fusion: the MoE layers permute tokens to their experts in fused kernels. Framework default: off in Megatron-LM, on in NeMo / Megatron-Bridge.</source>
        <translation>Megatron-Core --moe-permute-fusion：MoE 层用融合内核把令牌重排到各自的专家。框架默认：Megatron-LM 中关闭，NeMo / Megatron-Bridge 中开启。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="218"/>
        <source>Sharding</source>
        <translation>分片</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="219"/>
        <source>DDP, ZeRO-1/2/3 or FSDP; auto: the least costly that fits.</source>
        <translation>DDP、ZeRO-1/2/3 或 FSDP；auto：放得下且代价最小的方式。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="220"/>
        <source>Offload to host</source>
        <translation>卸载到主机</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="221"/>
        <source>Tensor parallel</source>
        <translation>张量并行</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="221"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="222"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="224"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="229"/>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="222"/>
        <source>Expert parallel</source>
        <translation>专家并行</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="223"/>
        <source>Full training or LoRA (16/32-bit base) of an MoE model: the routed experts are spread over this many GPUs of each pipeline stage, each holding experts / N whole experts; their optimizer states are sharded over the GPUs that hold the same experts (Megatron-LM --expert-model-parallel-size). 1: every GPU holds every expert.</source>
        <translation>MoE 模型的全量训练或 LoRA（16/32 位基座）：路由专家分布在每个流水线阶段的这么多块 GPU 上，每块持有 experts / N 个完整专家；其优化器状态在持有相同专家的 GPU 上分片（Megatron-LM --expert-model-parallel-size）。1：每块 GPU 持有全部专家。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="224"/>
        <source>Expert tensor parallel</source>
        <translation>专家张量并行</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="225"/>
        <source>Full training with expert parallelism: each routed expert&apos;s matrices are split over this many GPUs (Megatron-LM --expert-tensor-parallel-size). Empty: the tensor-parallel size.</source>
        <translation>使用专家并行的全量训练：每个路由专家的矩阵切分到这么多块 GPU 上（Megatron-LM --expert-tensor-parallel-size）。留空：与张量并行规模相同。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="226"/>
        <source>Sequence parallel (with tensor parallel)</source>
        <translation>序列并行（配合张量并行）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="227"/>
        <source>Sequence parallel saves gathered inputs</source>
        <translation>序列并行保存全收集后的输入</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="228"/>
        <source>PyTorch DTensor sequence parallel (torchtitan): the column-parallel linears keep their all-gathered input for backward; Megatron-LM keeps the shard and gathers again.</source>
        <translation>PyTorch DTensor 序列并行（torchtitan）：列并行线性层为反向传播保留全收集后的输入；Megatron-LM 只保留分片并在反向时重新收集。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="229"/>
        <source>Context parallel</source>
        <translation>上下文并行</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="230"/>
        <source>The sequence is split over this many GPUs (ring attention, or Ulysses all-to-all over the attention heads).</source>
        <translation>序列被切分到这么多块 GPU 上（ring attention，或按注意力头做 Ulysses all-to-all）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="231"/>
        <source>Cross-entropy loss</source>
        <translation>交叉熵损失</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="232"/>
        <source>standard: full fp32 logits; standard-kept: standard, with the fp32 logits the model returned kept through backward (prime-rl SFT); standard-16bit: 16-bit logits without the fp32 upcast; standard-compiled: the fp32 upcast inside a torch.compile&apos;d loss (torchtitan since 2025-04); chunked: torchtune chunked CE; fused: Liger fused linear cross-entropy; inplace-16bit: 16-bit logits whose gradient is written in place (Unsloth); vocab-chunked: the output layer and loss walked over a few vocabulary columns at a time, logits never whole (prime-rl RL); sum-16bit: a plain sum of the 16-bit logits kept through backward, with one dense copy of its gradient (benchmarks&apos; logits.sum()).</source>
        <translation>standard：完整 fp32 logits；standard-kept：即 standard，且模型返回的 fp32 logits 在整个反向传播期间仍被保留（prime-rl SFT）；standard-16bit：16 位 logits，不提升为 fp32；standard-compiled：在 torch.compile 编译的损失函数内提升为 fp32（2025-04 起的 torchtitan）；chunked：torchtune 分块交叉熵；fused：Liger 融合线性交叉熵；inplace-16bit：16 位 logits，梯度原地写回（Unsloth）；vocab-chunked：输出层和损失每次只计算少量词表列，logits 从不完整存在（prime-rl RL）；sum-16bit：对保留到反向传播的 16 位 logits 直接求和，并有一份其梯度的稠密副本（基准脚本中的 logits.sum()）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="233"/>
        <source>Loss vocabulary chunk</source>
        <translation>损失词表分块</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="233"/>
        <source>columns</source>
        <translation>列</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="234"/>
        <source>With the vocab-chunked loss: vocabulary columns the output layer and loss compute at a time (prime-rl: %1).</source>
        <translation>使用 vocab-chunked 损失时：输出层和损失每次计算的词表列数（prime-rl：%1）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="235"/>
        <source>Optimizer step in backward</source>
        <translation>在反向传播中执行优化器步</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="236"/>
        <source>Each parameter is updated as soon as its gradient is ready: no full gradient buffer.</source>
        <translation>每个参数在其梯度就绪后立即更新：无需完整的梯度缓冲区。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="237"/>
        <source>Offload activations to host</source>
        <translation>将激活值卸载到主机内存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="238"/>
        <source>torch.compile or fused kernels</source>
        <translation>torch.compile 或融合算子</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="239"/>
        <source>Compiled models save fewer activations than eager PyTorch.</source>
        <translation>编译后的模型比 eager 模式的 PyTorch 保存更少的激活值。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="240"/>
        <source>FSDP version</source>
        <translation>FSDP 版本</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="241"/>
        <source>With FSDP sharding: 1 = FullyShardedDataParallel (flat parameters), 2 = fully_shard.</source>
        <translation>使用 FSDP 分片时：1 = FullyShardedDataParallel（扁平参数），2 = fully_shard。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="242"/>
        <source>Optimizer step implementation</source>
        <translation>优化器步骤实现</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="243"/>
        <source>foreach (PyTorch 2.x default) keeps one state-sized temporary during the step; fused and for-loop (PyTorch 1.x, HF adamw_hf) do not.</source>
        <translation>foreach（PyTorch 2.x 默认）在步骤中保留一个与状态同样大小的临时张量；fused 和 for-loop（PyTorch 1.x、HF adamw_hf）没有。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="244"/>
        <source>zero_grad keeps gradients (PyTorch before 2.0)</source>
        <translation>zero_grad 保留梯度（PyTorch 2.0 之前）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="245"/>
        <source>ZeRO-3 max reuse distance</source>
        <translation>ZeRO-3 最大复用距离</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="245"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="247"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="249"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="251"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="253"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="255"/>
        <source>elements</source>
        <translation>个元素</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="246"/>
        <source>DeepSpeed stage3_max_reuse_distance in elements (default 1e9): gathered parameters used again within this many stay on the GPU.</source>
        <translation>DeepSpeed stage3_max_reuse_distance，单位为元素个数（默认 1e9）：在此距离内会再次使用的已聚合参数留在 GPU 上。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="247"/>
        <source>ZeRO-3 max live parameters</source>
        <translation>ZeRO-3 最大驻留参数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="248"/>
        <source>DeepSpeed stage3_max_live_parameters in elements (default 1e9): the cap on prefetched parameters.</source>
        <translation>DeepSpeed stage3_max_live_parameters，单位为元素个数（默认 1e9）：预取参数的上限。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="249"/>
        <source>ZeRO-3 prefetch bucket</source>
        <translation>ZeRO-3 预取桶</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="250"/>
        <source>DeepSpeed stage3_prefetch_bucket_size in elements; empty: auto (0.9 x hidden^2).</source>
        <translation>DeepSpeed stage3_prefetch_bucket_size，单位为元素个数；留空：auto（0.9 x hidden^2）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="251"/>
        <source>ZeRO-3 persistence threshold</source>
        <translation>ZeRO-3 常驻阈值</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="252"/>
        <source>DeepSpeed stage3_param_persistence_threshold in elements; empty: auto (10 x hidden). Smaller parameters are never partitioned.</source>
        <translation>DeepSpeed stage3_param_persistence_threshold，单位为元素个数；留空：auto（10 x hidden）。更小的参数从不切分。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="253"/>
        <source>ZeRO-3 reduce bucket</source>
        <translation>ZeRO-3 归约桶</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="254"/>
        <source>DeepSpeed reduce_bucket_size in elements; empty: auto (hidden^2). A flat gradient buffer of that size stays on the GPU.</source>
        <translation>DeepSpeed reduce_bucket_size，单位为元素个数；留空：auto（hidden^2）。该大小的扁平梯度缓冲区常驻 GPU。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="255"/>
        <source>ZeRO-2 reduce bucket</source>
        <translation>ZeRO-2 归约桶</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="256"/>
        <source>DeepSpeed ZeRO-2 reduce_bucket_size in elements; empty: DeepSpeed&apos;s default 5e8. The Hugging Face Trainer&apos;s &quot;auto&quot; fills hidden_size x hidden_size, Lightning&apos;s deepspeed_stage_2 2e8. The gradient bucket sits on the GPU during backward.</source>
        <translation>DeepSpeed ZeRO-2 的 reduce_bucket_size，单位为元素个数；留空：DeepSpeed 默认的 5e8。Hugging Face Trainer 的 &quot;auto&quot; 填为 hidden_size x hidden_size，Lightning 的 deepspeed_stage_2 为 2e8。反向传播期间该梯度桶位于 GPU 上。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="257"/>
        <source>ZeRO-3 sizes left empty</source>
        <translation>ZeRO-3 留空大小的来源</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="258"/>
        <source>Where the three ZeRO-3 sizes left empty come from: hf-auto when the DeepSpeed config says &quot;auto&quot; (Hugging Face Trainer, accelerate with a config file); deepspeed when the config leaves them out (accelerate&apos;s DeepSpeed plugin without a config file): reduce bucket 5e8, prefetch bucket 5e7, persistence threshold 1e5.</source>
        <translation>留空的三个 ZeRO-3 大小从何而来：DeepSpeed 配置写 &quot;auto&quot; 时为 hf-auto（Hugging Face Trainer、带配置文件的 accelerate）；配置中未写这些键时为 deepspeed（accelerate 的 DeepSpeed 插件不带配置文件）：reduce 桶 5e8、预取桶 5e7、常驻阈值 1e5。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="259"/>
        <source>ZeRO-3 model built outside zero.Init</source>
        <translation>在 zero.Init 之外构建的 ZeRO-3 模型</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="260"/>
        <source>Full training with DeepSpeed ZeRO-3 of a model loaded before DeepSpeed&apos;s config is known (from_pretrained before TrainingArguments, or a model built before deepspeed.initialize): the engine first moves the whole model to every GPU, and F.linear is not replaced by DeepSpeed&apos;s version, so every gathered Linear weight stays allocated from its forward to its backward. Off: the model is built inside deepspeed.zero.Init.</source>
        <translation>使用 DeepSpeed ZeRO-3 全量训练一个在 DeepSpeed 配置生效之前加载的模型（在 TrainingArguments 之前调用 from_pretrained，或在 deepspeed.initialize 之前构建模型）：引擎先把整个模型移到每张 GPU 上，且 F.linear 未被替换为 DeepSpeed 的版本，因此每个聚合后的 Linear 权重从其前向到其反向一直占用显存。关闭：模型在 deepspeed.zero.Init 中构建。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="261"/>
        <source>Norms and embeddings upcast to fp32 (prepare_model_for_kbit_training)</source>
        <translation>归一化层和嵌入提升为 fp32（prepare_model_for_kbit_training）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="262"/>
        <source>PEFT&apos;s prepare_model_for_kbit_training (called by TRL&apos;s SFTTrainer for a 4-bit model on one GPU) makes the residual stream fp32.</source>
        <translation>PEFT 的 prepare_model_for_kbit_training（TRL 的 SFTTrainer 在单 GPU 上对 4 位模型调用）会使残差流变为 fp32。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="263"/>
        <source>Embeddings and LM head back in bf16 (TRL, bf16)</source>
        <translation>嵌入层和 LM head 转回 bf16（TRL，bf16）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="264"/>
        <source>TRL&apos;s SFTTrainer under bf16 makes the norms fp32 (an fp32 residual stream) and casts the embeddings and LM head back to bf16 after the fp32 upcast; without the upcast they stay as loaded.</source>
        <translation>TRL 的 SFTTrainer 在 bf16 下把归一化层转为 fp32（残差流为 fp32），并在 fp32 上转之后把嵌入层和 LM head 转回 bf16；没有上转时它们保持加载时的精度。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="265"/>
        <source>FSDP1: adapters share flat parameters with the frozen base</source>
        <translation>FSDP1：适配器与冻结基座共用扁平参数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="266"/>
        <source>Without a separate wrap of the LoRA adapters (PEFT fsdp_auto_wrap_policy, torchtune lora_fsdp_wrap_policy), FSDP1 allocates gradients for the frozen base too.</source>
        <translation>如果没有单独包装 LoRA 适配器（PEFT fsdp_auto_wrap_policy、torchtune lora_fsdp_wrap_policy），FSDP1 也会为冻结的基座分配梯度。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="267"/>
        <source>CUDA lazy module loading</source>
        <translation>CUDA 模块延迟加载</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="268"/>
        <source>On since CUDA 11.7 / PyTorch 2.0; off loads every kernel at start-up (about 1.3 GiB of context).</source>
        <translation>自 CUDA 11.7 / PyTorch 2.0 起默认开启；关闭时启动即加载全部内核（上下文约 1.3 GiB）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="269"/>
        <source>CUDA major version of the PyTorch build</source>
        <translation>PyTorch 构建的 CUDA 主版本</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="270"/>
        <source>torch.version.cuda. With lazy loading off, CUDA 10 (PyTorch 1.8 and older +cu10x wheels) loads smaller kernel libraries: about 0.9 GiB of context instead of 1.3 GiB.</source>
        <translation>torch.version.cuda。关闭延迟加载时，CUDA 10（PyTorch 1.8 及更早的 +cu10x 包）加载的内核库较小：上下文约 0.9 GiB 而不是 1.3 GiB。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="271"/>
        <source>Framework (for the expected error only)</source>
        <translation>框架（仅用于预期误差）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="272"/>
        <source>any</source>
        <translation>任意</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="273"/>
        <source>Chooses which published cases give the estimate&apos;s expected error band; the estimate itself does not change.</source>
        <translation>选择用哪些公开案例给出估算的预期误差范围；估算本身不变。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="274"/>
        <source>LoRA rank</source>
        <translation>LoRA 秩</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="275"/>
        <source>LoRA target modules (comma-separated)</source>
        <translation>LoRA 目标模块（逗号分隔）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="276"/>
        <source>all-linear, or module names such as q_proj, v_proj.</source>
        <translation>all-linear，或模块名，如 q_proj、v_proj。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="277"/>
        <source>LoRA dropout</source>
        <translation>LoRA dropout</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="278"/>
        <source>Above 0 every adapter keeps its own copy of its input for backward (PEFT&apos;s default is 0).</source>
        <translation>大于 0 时，每个适配器都会为反向传播各自保留一份输入副本（PEFT 默认为 0）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="279"/>
        <source>bitsandbytes older than 0.43.2 (QLoRA)</source>
        <translation>0.43.2 之前的 bitsandbytes（QLoRA）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="280"/>
        <source>Old bitsandbytes keeps the input of every 4-bit Linear for backward, frozen ones included.</source>
        <translation>旧版 bitsandbytes 会为每个 4 位 Linear（包括冻结的）保留其输入以供反向传播。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="281"/>
        <source>Non-reentrant checkpointing</source>
        <translation>非重入检查点</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="282"/>
        <source>Whole-layer recompute with use_reentrant=False: a bitsandbytes base (old 4-bit, or 8-bit) keeps every layer&apos;s Linear inputs from forward to backward. Off: reentrant, transformers&apos; default.</source>
        <translation>以 use_reentrant=False 重算整层：bitsandbytes 底座（旧版 4 位或 8 位）会把每一层 Linear 的输入从前向一直保留到反向。关闭：重入式，transformers 的默认。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="283"/>
        <source>LoRA kernels</source>
        <translation>LoRA 内核</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="284"/>
        <source>peft: one autograd node per Linear and adapter; fused: Unsloth&apos;s fused LoRA blocks keep only the MLP input and the gate and up outputs.</source>
        <translation>peft：每个 Linear 和适配器各一个自动求导节点；fused：Unsloth 的融合 LoRA 块只保留 MLP 输入以及 gate 和 up 的输出。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="285"/>
        <source>LoRA base weights</source>
        <translation>LoRA 基座权重</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="286"/>
        <source>precision: the frozen base at the training precision; int8: bitsandbytes LLM.int8 (load_in_8bit), 1 byte a Linear weight, and every 8-bit Linear keeps its 16-bit input for backward; fp32: with FSDP sharding, the model loaded in fp32 and cast to the 16-bit precision unit by unit by FSDP mixed precision (prime-rl).</source>
        <translation>precision：冻结基座按训练精度存储；int8：bitsandbytes LLM.int8（load_in_8bit），每个 Linear 权重 1 字节，且每个 8 位 Linear 为反向保留其 16 位输入；fp32：在 FSDP 分片下，模型以 fp32 加载，由 FSDP 混合精度逐个单元转换为 16 位精度（prime-rl）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="287"/>
        <source>Modules trained in full (comma-separated)</source>
        <translation>完整训练的模块（逗号分隔）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="288"/>
        <source>PEFT modules_to_save: embed_tokens, lm_head and/or norms (every norm layer) are trained as full copies beside the frozen originals, with gradients and optimizer states.</source>
        <translation>PEFT modules_to_save：embed_tokens、lm_head 和/或 norms（每个归一化层）在冻结原模块之外以完整副本训练，带梯度和优化器状态。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="289"/>
        <source>NF4 double quantisation (QLoRA)</source>
        <translation>NF4 双重量化（QLoRA）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="290"/>
        <source>bitsandbytes bnb_4bit_use_double_quant: 4.127 bits a weight; off: 4.5 bits.</source>
        <translation>bitsandbytes bnb_4bit_use_double_quant：每个权重 4.127 位；关闭时为 4.5 位。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="291"/>
        <source>Weight loading</source>
        <translation>权重加载方式</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="292"/>
        <source>per-tensor: one tensor at a time; nf4-nearest-search: torchao to_nf4 before May 2024 (a large quantisation spike); fsdp1-sync-states: FSDP1 sync_module_states from rank 0. The reserved peak is the larger of loading and training.</source>
        <translation>per-tensor：逐个张量加载；nf4-nearest-search：2024 年 5 月之前的 torchao to_nf4（量化时显存尖峰很大）；fsdp1-sync-states：FSDP1 从 rank 0 执行 sync_module_states。预留峰值取加载与训练两者中的较大值。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="293"/>
        <source>Inference weight format</source>
        <translation>推理权重格式</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="294"/>
        <source>KV cache precision</source>
        <translation>KV 缓存精度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="295"/>
        <source>KV cache implementation</source>
        <translation>KV 缓存实现</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="296"/>
        <source>paged: vLLM/SGLang; dynamic: HF DynamicCache kept by generate (transformers 4.42 and later); legacy-tuple: tuple past_key_values, transformers 4.41 and older (old and new cache at once, the prompt logits kept through the first step); static: gpt-fast (a causal mask quadratic in the cache length).</source>
        <translation>paged：vLLM/SGLang；dynamic：generate 全程保留的 HF DynamicCache（transformers 4.42 及以后）；legacy-tuple：元组 past_key_values，transformers 4.41 及更早（新旧缓存同时存在，提示词的 logits 保留到第一个解码步）；static：gpt-fast（因果掩码随缓存长度平方增长）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="297"/>
        <source>Prefill logits</source>
        <translation>预填充 logits</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="298"/>
        <source>last: only the last prompt position (transformers 4.45 and later, vLLM, SGLang); all: every prompt position in fp32 (transformers 4.44 and older generate); all-16bit: every prompt position at the 16-bit dtype (a model whose forward does not upcast its logits, e.g. OPT).</source>
        <translation>last：仅最后一个提示位置（transformers 4.45 及以后、vLLM、SGLang）；all：全部提示位置，fp32（transformers 4.44 及以前的 generate）；all-16bit：全部提示位置，保持 16 位类型（前向不提升 logits 的模型，例如 OPT）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="299"/>
        <source>FSDP1 syncs every micro-batch</source>
        <translation>FSDP1 每个微批次都同步</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="300"/>
        <source>With FSDP1 and gradient accumulation: on for loops that reduce-scatter every micro-batch (torchtune, Accelerate sync_each_batch); off: full gradients accumulate on every GPU under no_sync() (Accelerate, Lightning Fabric).</source>
        <translation>使用 FSDP1 和梯度累积时：训练循环每个微批次都做 reduce-scatter 时打开（torchtune、Accelerate sync_each_batch）；关闭：完整梯度在 no_sync() 下于每张 GPU 上累积（Accelerate、Lightning Fabric）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="301"/>
        <source>FSDP2 gradient sync off between micro-batches</source>
        <translation>FSDP2 在微批次之间关闭梯度同步</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="303"/>
        <source>With FSDP2 and gradient accumulation: off when the loop reduce-scatters every micro-batch (torchtitan, torchtune); fp32 when it calls set_requires_gradient_sync(False) before the last micro-batch with an fp32 reduce dtype, so every GPU keeps its full gradients in fp32 (Accelerate since PR 3762, KempnerForge); grad-dtype: the same in the gradients&apos; own dtype.</source>
        <translation>FSDP2 与梯度累积同用：训练循环每个微批次都做 reduce-scatter 时选 off（torchtitan、torchtune）；在最后一个微批次之前调用 set_requires_gradient_sync(False) 且归约精度为 fp32 时选 fp32，此时每块 GPU 以 fp32 保留完整梯度（Accelerate PR 3762 起、KempnerForge）；grad-dtype：同上，但以梯度自身的精度保留。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="304"/>
        <source>Whole logits on every tensor-parallel GPU</source>
        <translation>每块张量并行 GPU 都持有完整 logits</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="305"/>
        <source>Full training with tensor parallelism: on when the output layer gathers the whole vocabulary logits on every GPU for a plain cross-entropy (torchtitan without loss parallel, KempnerForge). Off: each GPU keeps its slice of the vocabulary (Megatron, loss parallel).</source>
        <translation>张量并行的全量训练：输出层在每块 GPU 上汇集完整词表 logits 供普通交叉熵使用时打开（不用 loss parallel 的 torchtitan、KempnerForge）。关闭：每块 GPU 只保留自己那一段词表（Megatron、loss parallel）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="306"/>
        <source>Token embedding whole on every tensor-parallel GPU</source>
        <translation>词嵌入在每块张量并行 GPU 上保持完整</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="307"/>
        <source>Full training with tensor parallelism: on when the token embedding is left whole on every GPU (KempnerForge); its weights, gradients and optimizer states are then not divided by the tensor-parallel degree. Off: sharded (Megatron, torchtitan).</source>
        <translation>张量并行的全量训练：词嵌入在每块 GPU 上保持完整时打开（KempnerForge）；其权重、梯度和优化器状态不再按张量并行度切分。关闭：分片（Megatron、torchtitan）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="308"/>
        <source>DDP gradients as bucket views</source>
        <translation>DDP 梯度为桶视图</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="309"/>
        <source>Full training with plain DDP: on when the gradients are views into the all-reduce buckets (PyTorch gradient_as_bucket_view=True, Megatron-Core); off: PyTorch DDP&apos;s default keeps a second copy of every gradient.</source>
        <translation>纯 DDP 全量训练：梯度是 all-reduce 桶的视图时打开（PyTorch gradient_as_bucket_view=True、Megatron-Core）；关闭：PyTorch DDP 默认为每个梯度保留第二份副本。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="310"/>
        <source>Gradients kept in fp32</source>
        <translation>梯度以 fp32 保存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="311"/>
        <source>Full training: on when the gradients of the 16-bit parameters accumulate in an fp32 buffer, 4 bytes a parameter, allocated with the model and alive for the whole run (Megatron-LM with --bf16). Off: gradients in the parameters&apos; own dtype.</source>
        <translation>全量训练：16 位参数的梯度在 fp32 缓冲区中累加、每个参数 4 字节，且该缓冲区随模型一起分配、在整个运行期间一直存在时打开（Megatron-LM 使用 --bf16）。关闭：梯度使用参数自身的数据类型。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="312"/>
        <source>fp32 main gradients kept between steps</source>
        <translation>步间保留 fp32 主梯度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="313"/>
        <source>Full training with plain DDP and fp16/bf16 parameters: on when the optimizer keeps the fp32 main gradients from one step to the next (4 bytes a parameter) and the all-reduce packs the gradients into one flat copy after backward (Megatron-LM&apos;s fp16 optimizer with local DDP before contiguous buffers, 2021). Off: the step&apos;s fp32 gradients are freed, PyTorch DDP buckets.</source>
        <translation>使用普通 DDP、参数为 fp16/bf16 的全量训练：若优化器把 fp32 主梯度从一步保留到下一步（每个参数 4 字节），且反向传播后 all-reduce 把梯度打包成一份扁平副本（Megatron-LM 2021 年的 fp16 优化器，使用 local DDP、尚无连续缓冲区），则打开。关闭：每步的 fp32 梯度被释放，使用 PyTorch DDP 梯度桶。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="314"/>
        <source>GELU computed op by op</source>
        <translation>逐算子计算的 GELU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="315"/>
        <source>Training in eager PyTorch whose MLP activation is the tanh GELU written as Python arithmetic (transformers gelu_new: GPT-2, GPT-J, Phi): three more MLP-wide tensors are saved a layer. Off: a fused GELU kernel (torch.compile, litgpt, Megatron).</source>
        <translation>在 eager PyTorch 中训练，MLP 激活是用 Python 算术写成的 tanh GELU（transformers gelu_new：GPT-2、GPT-J、Phi）：每层多保存三个 MLP 宽度的张量。关闭：融合的 GELU 内核（torch.compile、litgpt、Megatron）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="316"/>
        <source>Fused RMSNorm kernel</source>
        <translation>融合 RMSNorm 内核</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="317"/>
        <source>Training in eager PyTorch whose RMSNorms run in a fused kernel (apex FusedRMSNorm, Megatron-LM forks with --apply-layernorm-rms): no fp32 copies of the norms are saved; an eager SiLU still saves its output. Off: Python RMSNorms with an fp32 upcast (transformers, torchtune). torch.compile removes both.</source>
        <translation>在 eager PyTorch 中训练且 RMSNorm 使用融合内核（apex FusedRMSNorm、带 --apply-layernorm-rms 的 Megatron-LM 分支）：不保存归一化的 fp32 副本；eager 的 SiLU 仍会保存其输出。关闭：带 fp32 上转换的 Python RMSNorm（transformers、torchtune）。torch.compile 会同时去掉两者。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="318"/>
        <source>Keys and values kept grouped</source>
        <translation>键和值按组保存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="319"/>
        <source>Training of a grouped-query (GQA) model whose attention kernel takes the keys and values as they are (flash-attn, transformers flash_attention_2, Megatron/Transformer Engine): they are saved at the key/value heads&apos; width. Off: repeated to every query head before attention (torchtitan, torchtune, transformers sdpa or eager).</source>
        <translation>训练分组查询注意力（GQA）模型，且注意力内核直接接收原样的键和值（flash-attn、transformers flash_attention_2、Megatron/Transformer Engine）：它们按键/值头的宽度保存。关闭：在注意力之前复制到每个查询头（torchtitan、torchtune、transformers sdpa 或 eager）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="320"/>
        <source>Eager softmax</source>
        <translation>Eager softmax 写法</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="321"/>
        <source>Training of 16-bit weights without a fused attention kernel: 16bit (a fused softmax kernel, 5 bytes kept per attention score), fp32 (softmax computed in fp32 and cast back, transformers&apos; eager attention: 6 bytes) or fp32-clamped (the masked scores clamped with torch.max first, OPT: 8 bytes).</source>
        <translation>不使用融合注意力内核训练 16 位权重：16bit（融合 softmax 内核，每个注意力分数保存 5 字节）、fp32（softmax 以 fp32 计算后再转回，transformers 的 eager 注意力：6 字节）或 fp32-clamped（先用 torch.max 截断被遮蔽的分数，OPT：8 字节）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="322"/>
        <source>Encoder LM head</source>
        <translation>编码器 LM 头</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="323"/>
        <source>Full training of an encoder (BERT, RoBERTa, DistilBERT) with its masked-language-model head over every position (BertForMaskedLM, BertLMHeadModel): the vocabulary logits, kept as the loss setting says, and the head&apos;s dense, GELU and LayerNorm are counted. Off: a classifier head with no vocabulary logits.</source>
        <translation>全量训练带掩码语言模型头（作用于每个位置）的编码器（BERT、RoBERTa、DistilBERT；BertForMaskedLM、BertLMHeadModel）：计入按损失设置保留的词表 logits，以及输出头的 dense、GELU 和 LayerNorm。关闭：分类头，无词表 logits。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="324"/>
        <source>FSDP wraps only the root module</source>
        <translation>FSDP 只包装根模块</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="325"/>
        <source>Full training with FSDP and no auto-wrap policy (Lightning FSDPStrategy() without auto_wrap_policy, fully_shard on the model alone): the whole model is one unit, so every parameter is unsharded from forward to the end of backward and its gradient exists twice before the reduce-scatter. Off: one unit per transformer block.</source>
        <translation>没有自动包装策略的 FSDP 全量训练（Lightning FSDPStrategy() 未设 auto_wrap_policy，或只对整个模型调用 fully_shard）：整个模型是一个单元，因此每个参数从前向到反向结束都不分片，其梯度在 reduce-scatter 之前存在两份。关闭：每个 transformer 块一个单元。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="326"/>
        <source>FSDP1 rate limiter off</source>
        <translation>关闭 FSDP1 速率限制器</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="327"/>
        <source>Training with FSDP version 1 and limit_all_gathers=False (PyTorch 2.0&apos;s default): the CPU issues every unit&apos;s all-gather ahead of the GPU, so the whole model is counted unsharded at once. Off: the rate limiter keeps two units gathered.</source>
        <translation>使用 FSDP 版本 1 且 limit_all_gathers=False（PyTorch 2.0 的默认值）训练：CPU 先于 GPU 发出每个单元的 all-gather，因此整个模型同时按未分片计算。关闭：速率限制器只保持两个单元处于聚合状态。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="328"/>
        <source>Generate without a KV cache</source>
        <translation>不使用 KV 缓存生成</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="329"/>
        <source>Inference with use_cache=False: every new token re-runs the whole sequence, so no cache is kept and the peak is one forward pass over the context.</source>
        <translation>use_cache=False 的推理：每个新 token 都重新运行整个序列，不保留缓存，峰值为对整个上下文的一次前向计算。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="330"/>
        <source>q/k/v fused after loading</source>
        <translation>加载后融合 q/k/v</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="331"/>
        <source>Inference with AutoAWQ fuse_layers=True: every layer&apos;s q, k and v are copied into one matrix before the unfused layers are freed, so the peak may be while loading.</source>
        <translation>使用 AutoAWQ fuse_layers=True 推理：每层的 q、k、v 先被复制到一个矩阵中，之后才释放未融合的层，因此峰值可能出现在加载时。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="332"/>
        <source>Prompt keys and values kept twice</source>
        <translation>提示词的键和值保留两份</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="333"/>
        <source>Inference with a static KV cache whose fused attention also returns the prompt&apos;s keys and values, which the model keeps for every layer until the prefill ends (AutoAWQ fuse_layers=True before 0.1.6, inside transformers&apos; Llama model).</source>
        <translation>推理且使用静态 KV 缓存，其融合注意力还会返回提示词的键和值，模型在预填充结束前为每一层保留它们（AutoAWQ 0.1.6 之前的 fuse_layers=True，运行于 transformers 的 Llama 模型内）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="334"/>
        <source>GPTQ kernel</source>
        <translation>GPTQ 内核</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="335"/>
        <source>Inference of 4-bit GPTQ weights through AutoGPTQ&apos;s ExLlama kernels, which keep a scratch buffer for the whole run: exllama, exllama-act-order (desc_act checkpoints), exllamav2. none: kernels without one.</source>
        <translation>推理 4 位 GPTQ 权重且使用 AutoGPTQ 的 ExLlama 内核，它们在整个运行期间保留一块临时缓冲区：exllama、exllama-act-order（desc_act 检查点）、exllamav2。none：没有此缓冲区的内核。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="336"/>
        <source>Decode attention</source>
        <translation>decode 注意力</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="337"/>
        <source>Inference with a contiguous KV cache (KV cache implementation static, dynamic or legacy-tuple; not the default paged one): fused (a fused kernel reads the cache in place); math-16bit / math-fp32: eager decode on PyTorch&apos;s math attention backend (gpt-fast, torchao generate.py), which copies a layer&apos;s keys and values over the whole context, in fp32 from PyTorch 2.5.</source>
        <translation>推理且 KV 缓存连续存放时（KV 缓存实现为 static、dynamic 或 legacy-tuple，而非默认的 paged）：fused（融合算子直接读取缓存）；math-16bit / math-fp32：eager decode 走 PyTorch 的 math 注意力后端（gpt-fast、torchao generate.py），会复制一层覆盖整个上下文的键和值，PyTorch 2.5 起为 fp32。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="338"/>
        <source>Load dtype</source>
        <translation>加载数据类型</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="339"/>
        <source>Inference with 16-bit weights: weight-format (loaded as they run) or fp32 (from_pretrained without torch_dtype, then .cuda().half(): the whole fp32 model is on the GPU before the cast, and the allocator keeps its blocks reserved).</source>
        <translation>推理且权重为 16 位时：weight-format（按运行时的格式加载）或 fp32（from_pretrained 不给 torch_dtype，再调用 .cuda().half()：转换前整个 fp32 模型都在 GPU 上，且分配器会保留这些显存块）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="340"/>
        <source>Longest input (ExLlama act-order)</source>
        <translation>最长输入（ExLlama act-order）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="341"/>
        <source>With the exllama-act-order kernel: the longest input its reorder buffer is sized for (AutoGPTQ max_input_length, default 2048).</source>
        <translation>使用 exllama-act-order 内核时：其重排缓冲区按此最长输入分配（AutoGPTQ max_input_length，默认 2048）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="342"/>
        <source>Embedding and LM head on every TP GPU</source>
        <translation>每张张量并行 GPU 上都有嵌入层和 LM 头</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="343"/>
        <source>Inference with tensor parallelism that shards only the decoder blocks (lit-gpt generate/tp.py): every GPU keeps the whole embedding and LM head. Off: the vocabulary is split (vLLM, SGLang, Megatron-LM).</source>
        <translation>推理时张量并行只切分解码器块（lit-gpt generate/tp.py）：每张 GPU 保留完整的嵌入层和 LM 头。关闭：词表被切分（vLLM、SGLang、Megatron-LM）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="344"/>
        <source>Input embedding table in host memory</source>
        <translation>输入嵌入表在主机内存中</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="345"/>
        <source>Inference engines such as ExLlama keep the embedding table on the CPU and copy only the looked-up rows to the GPU.</source>
        <translation>ExLlama 等推理引擎把嵌入表留在 CPU 上，只把查到的行复制到 GPU。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="346"/>
        <source>4-bit layers compute in fp32</source>
        <translation>4 位层以 fp32 计算</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="347"/>
        <source>Inference of bitsandbytes 4-bit (nf4) weights loaded without bnb_4bit_compute_dtype (transformers&apos; default float32): each layer casts its input to fp32 and, in the prefill, dequantises its weight to fp32.</source>
        <translation>推理加载时未设 bnb_4bit_compute_dtype（transformers 默认 float32）的 bitsandbytes 4 位（nf4）权重：每层把输入转为 fp32，并在预填充时把权重反量化为 fp32。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="348"/>
        <source>MLA decode matrices</source>
        <translation>MLA 解码矩阵</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="349"/>
        <source>DeepSeek-V2/V3 serving: up-proj: vLLM since March 2025 (a 16-bit copy of a quantised kv_b_proj); absorbed: vLLM 0.7.1 to 0.7.3 (absorbed W_Q_UK and W_UV_O); none: HF transformers.</source>
        <translation>DeepSeek-V2/V3 推理服务：up-proj：2025 年 3 月起的 vLLM（量化 kv_b_proj 的一份 16 位副本）；absorbed：vLLM 0.7.1 至 0.7.3（吸收后的 W_Q_UK 与 W_UV_O）；none：HF transformers。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="350"/>
        <source>Activations per sample (non-transformer)</source>
        <translation>每样本激活显存（非 Transformer）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="351"/>
        <source>For CNNs and 3D U-Nets: measured or estimated activation memory per sample.</source>
        <translation>用于 CNN 和 3D U-Net：每个样本实测或估计的激活显存。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="352"/>
        <source>Training FLOPs per sample (non-transformer)</source>
        <translation>每样本训练 FLOPs（非 Transformer）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="361"/>
        <source>3. Training or inference</source>
        <translation>3. 训练还是推理</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="362"/>
        <source>How is GPU time split between training and serving, and what are the deadline and QPS?</source>
        <translation>GPU 时间如何在训练和推理服务之间分配，截止时间和 QPS 是多少？</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="364"/>
        <source>Training share of GPU time</source>
        <translation>训练占 GPU 时间的比例</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="365"/>
        <source>100 % for a training project, 0 % for a serving cluster.</source>
        <translation>训练项目为 100 %，推理服务集群为 0 %。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="366"/>
        <source>Deadline (time to result)</source>
        <translation>截止时间（出结果的时间）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="366"/>
        <source>days</source>
        <translation>天</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="367"/>
        <source>Tokens to train</source>
        <translation>训练 token 数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="368"/>
        <source>Empty: samples x sequence length x epochs.</source>
        <translation>留空：样本数 × 序列长度 × 轮数。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="369"/>
        <source>Target QPS</source>
        <translation>目标 QPS</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="369"/>
        <source>requests/s</source>
        <translation>请求/秒</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="370"/>
        <source>Prompt length</source>
        <translation>提示长度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="371"/>
        <source>Output length</source>
        <translation>输出长度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="372"/>
        <source>0 for classifiers and scoring models.</source>
        <translation>分类和打分模型填 0。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="373"/>
        <source>Max concurrent sequences per GPU</source>
        <translation>每 GPU 最大并发序列数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="374"/>
        <source>Time to first token target</source>
        <translation>首字延迟（TTFT）目标</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="374"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="376"/>
        <source>ms</source>
        <translation>ms</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="375"/>
        <source>Empty: no latency target. Prefill of one prompt, without queueing.</source>
        <translation>留空：无延迟目标。指单个提示词的预填充时间，不含排队。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="376"/>
        <source>Time per output token target</source>
        <translation>每token输出时间（TPOT）目标</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="377"/>
        <source>Empty: no latency target. The batch per replica is cut until a decode step meets it.</source>
        <translation>留空：无延迟目标。会逐步减小每个副本的批大小，直到一个解码步满足该目标。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="385"/>
        <source>4. Software stack</source>
        <translation>4. 软件栈</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="386"/>
        <source>Which framework, CUDA and libraries are locked in, and which compliance rules apply?</source>
        <translation>锁定了哪些框架、CUDA 和库版本，需要满足哪些合规要求？</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="388"/>
        <source>Framework</source>
        <translation>框架</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="389"/>
        <source>Framework version</source>
        <translation>框架版本</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="389"/>
        <source>For example 2.0.1.</source>
        <translation>例如 2.0.1。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="390"/>
        <source>CUDA version</source>
        <translation>CUDA 版本</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="390"/>
        <source>For example 12.1.</source>
        <translation>例如 12.1。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="391"/>
        <source>Libraries (comma-separated)</source>
        <translation>库（逗号分隔）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="392"/>
        <source>For example deepspeed==0.8.3, nccl==2.18.</source>
        <translation>例如 deepspeed==0.8.3, nccl==2.18。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="393"/>
        <source>Require ECC memory</source>
        <translation>需要 ECC 显存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="394"/>
        <source>Require vGPU</source>
        <translation>需要 vGPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="395"/>
        <source>Require virtualisation</source>
        <translation>需要虚拟化</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="396"/>
        <source>Require MIG</source>
        <translation>需要 MIG</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="397"/>
        <source>FIPS 140 compliance</source>
        <translation>FIPS 140 合规</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="398"/>
        <source>A property of the OS and driver crypto modules; the sheet lists it as a check.</source>
        <translation>这是操作系统和驱动加密模块的属性；配置单将其列为检查项。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="404"/>
        <source>(buy new servers)</source>
        <translation>（购买新服务器）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="408"/>
        <source>5. Operations and growth</source>
        <translation>5. 运维与扩展</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="409"/>
        <source>What exists already (servers, slots, power, cooling), what is the budget, and what grows in six months?</source>
        <translation>现有什么（服务器、插槽、电力、散热），预算多少，六个月内要扩展什么？</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="411"/>
        <source>Existing server</source>
        <translation>现有服务器</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="412"/>
        <source>Free GPU slots</source>
        <translation>空闲 GPU 插槽</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="413"/>
        <source>Power budget for new GPUs</source>
        <translation>新 GPU 的电力预算</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="414"/>
        <source>Cooling</source>
        <translation>散热</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="414"/>
        <source>either</source>
        <translation>均可</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="415"/>
        <source>GPUs to add within 6 months</source>
        <translation>6 个月内新增 GPU 数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="416"/>
        <source>Purchase budget</source>
        <translation>采购预算</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="417"/>
        <source>Largest GPU count to consider</source>
        <translation>考虑的最大 GPU 数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="418"/>
        <source>Consumer (GeForce) cards</source>
        <translation>消费级（GeForce）显卡</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="419"/>
        <source>by workload kind</source>
        <translation>按工作负载类型</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="419"/>
        <source>allowed</source>
        <translation>允许</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="419"/>
        <source>not allowed</source>
        <translation>不允许</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="420"/>
        <source>By workload kind: only for small-model iteration (article 5.3: the seven limits of consumer cards in production).</source>
        <translation>按工作负载类型：仅用于小模型迭代（文章 5.3：消费级显卡用于生产的七项限制）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="421"/>
        <source>Market (where you buy)</source>
        <translation>市场（采购地）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="422"/>
        <source>global</source>
        <translation>全球</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="422"/>
        <source>China</source>
        <translation>中国</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="423"/>
        <source>Global keeps out the SKUs made for the China market only (A800, H800, H20, L20, RTX 4090 D, export-control variants); China may recommend them.</source>
        <translation>全球：排除仅为中国市场制造的型号（A800、H800、H20、L20、RTX 4090 D，出口管制版）；中国：可推荐这些型号。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="424"/>
        <source>Network between nodes</source>
        <translation>节点间网络</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="425"/>
        <source>Memory kept free (safe line)</source>
        <translation>保留的空闲显存（安全线）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="426"/>
        <source>The method keeps 15-20 % of usable memory free: an 80 GB card is safe to about 64 GB.</source>
        <translation>该方法保留 15-20 % 的可用显存：80 GB 的卡安全用量约为 64 GB。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="427"/>
        <source>TCO horizon</source>
        <translation>TCO 年限</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="427"/>
        <source>years</source>
        <translation>年</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="428"/>
        <source>Electricity price</source>
        <translation>电价</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="429"/>
        <source>PUE</source>
        <translation>PUE</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="430"/>
        <source>Average utilisation</source>
        <translation>平均利用率</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="431"/>
        <source>Extra cooling</source>
        <translation>额外散热</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="432"/>
        <source>Operations labour</source>
        <translation>运维人工</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="433"/>
        <source>Labour rate</source>
        <translation>人工费率</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="434"/>
        <source>Support per year</source>
        <translation>每年支持费用</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="434"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="435"/>
        <location filename="../../gpudesk/ui/plan/questions.py" line="436"/>
        <source>% of hardware</source>
        <translation>% 硬件费用</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="435"/>
        <source>Network and installation</source>
        <translation>网络与安装</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="436"/>
        <source>Residual value</source>
        <translation>残值</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/questions.py" line="437"/>
        <source>Cost of each day late</source>
        <translation>每延迟一天的成本</translation>
    </message>
</context>
<context>
    <name>PlanSheet</name>
    <message>
        <location filename="../../gpudesk/ui/plan/sheet_pdf.py" line="124"/>
        <source>The configuration sheet is empty; run the plan before exporting.</source>
        <extracomment>Width of the charts&apos; row in the sheet&apos;s layout units (96 per inch, as QTextDocument lays out before printing): the charts are drawn side by side into one picture about the text width of a landscape page. A table with this many columns or more turns the page to landscape. A heading closer than this many of its own heights to the bottom of a page starts the next page instead, so a section title is never left alone at the foot of a page (&quot;Bill of materials&quot; over an empty line).</extracomment>
        <translation>配置单为空；请先运行规划再导出。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/sheet_pdf.py" line="126"/>
        <source>Cannot write {0}: the folder {1} does not exist.</source>
        <translation>无法写入 {0}：文件夹 {1} 不存在。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/sheet_pdf.py" line="132"/>
        <source>gpudesk configuration sheet</source>
        <translation>gpudesk 配置单</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/sheet_pdf.py" line="171"/>
        <source>Qt could not write the PDF {0}; check that the folder is writable.</source>
        <translation>Qt 无法写入 PDF {0}；请检查该文件夹是否可写。</translation>
    </message>
</context>
<context>
    <name>PlanTab</name>
    <message>
        <location filename="../../gpudesk/ui/plan/controller.py" line="58"/>
        <source>The saved profile is not valid {0}: {1}.</source>
        <translation>保存的配置文件不是有效的 {0}：{1}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/controller.py" line="60"/>
        <source>The saved profile is not a table of sections.</source>
        <translation>保存的配置文件不是由各节组成的表。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="51"/>
        <source>Plan</source>
        <translation>规划</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="55"/>
        <source>Quick mode</source>
        <translation>快速模式</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="55"/>
        <source>Model, method, sequence length and batch: does it fit?</source>
        <translation>模型、方法、序列长度和批大小：放得下吗？</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="56"/>
        <source>Wizard</source>
        <translation>向导</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="56"/>
        <source>The five questions, one page each</source>
        <translation>五个问题，每页一个</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="57"/>
        <source>Results</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="57"/>
        <source>The ranked configurations of the last plan</source>
        <translation>上次规划排序后的配置</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="58"/>
        <source>Saved plans</source>
        <translation>已保存的规划</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="58"/>
        <source>Reopen, duplicate, edit, compare, delete, export</source>
        <translation>重新打开、复制、编辑、比较、删除、导出</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="68"/>
        <source>Ne&amp;w plan</source>
        <translation>新建方案(&amp;W)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="69"/>
        <source>Start a blank plan: every answer back to its stated default, nothing kept from an example</source>
        <translation>开始空白方案：所有答案恢复为标明的默认值，不保留示例中的任何内容</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="73"/>
        <source>Load a bundled example requirement into the wizard</source>
        <translation>将自带的示例需求载入向导</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="76"/>
        <source>Start from example…</source>
        <translation>从示例开始…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="82"/>
        <source>Open profi&amp;le…</source>
        <translation>打开配置文件(&amp;L)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="83"/>
        <source>Load a requirement profile (TOML, as used by gpudesk plan --profile) into the wizard</source>
        <translation>将需求配置文件（TOML，与 gpudesk plan --profile 相同）载入向导</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="85"/>
        <source>Sa&amp;ve profile…</source>
        <translation>保存配置文件(&amp;V)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="86"/>
        <source>Write the wizard&apos;s answers as a TOML profile (for gpudesk plan --profile)</source>
        <translation>将向导中的回答写为 TOML 配置文件（用于 gpudesk plan --profile）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="90"/>
        <source>W&amp;ill it fit?…</source>
        <translation>放得下吗(&amp;I)？…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="91"/>
        <source>Will a model start in vLLM, SGLang, TensorRT-LLM, llama.cpp or Ollama on a GPU, and with which flags</source>
        <translation>模型能否在某款 GPU 上以 vLLM、SGLang、TensorRT-LLM、llama.cpp 或 Ollama 启动，需要哪些参数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="99"/>
        <location filename="../../gpudesk/ui/plan/tab.py" line="184"/>
        <location filename="../../gpudesk/ui/plan/tab.py" line="270"/>
        <source>Planning…</source>
        <translation>正在规划…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="113"/>
        <source>No plan yet: answer the wizard&apos;s questions and press Plan.</source>
        <translation>尚无规划：请回答向导中的问题并按“规划”。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="111"/>
        <source>Open requirement profile</source>
        <translation>打开需求配置文件</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/bar.py" line="112"/>
        <location filename="../../gpudesk/ui/plan/tab.py" line="336"/>
        <source>TOML profiles (*.toml)</source>
        <translation>TOML 配置文件 (*.toml)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="334"/>
        <source>Save requirement profile</source>
        <translation>保存需求配置文件</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/controller.py" line="272"/>
        <source>Profile written to {0}</source>
        <translation>配置文件已写入 {0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="172"/>
        <source>Cannot load the profile {0}: {1}</source>
        <translation>无法载入配置文件 {0}：{1}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="180"/>
        <source>Loaded “{0}” ({1}). Check the answers and press Plan.</source>
        <translation>已载入“{0}”（{1}）。请检查回答并按“规划”。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/controller.py" line="105"/>
        <source>The GPU catalog is not available, so no plan can be made. See the message at start-up.</source>
        <translation>GPU 目录不可用，无法进行规划。请查看启动时的消息。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="187"/>
        <source>Planning over the whole catalog…</source>
        <translation>正在基于整个目录规划…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/controller.py" line="137"/>
        <source>Your GPU prices could not be read, so catalog prices are used: {0}</source>
        <translation>无法读取您的 GPU 价格，将使用目录价格：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/controller.py" line="145"/>
        <source>Your price cannot be kept: the user database is not open.</source>
        <translation>无法保存您的价格：用户数据库未打开。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/controller.py" line="154"/>
        <source>from the Plan tab</source>
        <translation>来自“规划”标签页</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/controller.py" line="156"/>
        <source>The price was not saved: {0}</source>
        <translation>价格未保存：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/controller.py" line="159"/>
        <source>Saved your price for {0}: {1} USD per GPU. A plan is already being made; press Plan again when it is done to use the price.</source>
        <translation>已保存您为 {0} 设置的价格：每 GPU {1} USD。当前正在规划；完成后再按一次“规划”即可使用此价格。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/controller.py" line="163"/>
        <source>Saved your price for {0}: {1} USD per GPU. Planning again…</source>
        <translation>已保存您为 {0} 设置的价格：每 GPU {1} USD。正在重新规划…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="127"/>
        <source>New plan. Defaults: {0}. Enter the model and the amount of data, then press Plan.</source>
        <translation>新方案。默认值：{0}。请输入模型和数据量，然后按“规划”。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="153"/>
        <source>Applied to the answers: {0}. Press Plan to plan again with them.</source>
        <translation>已写入答案：{0}。按“规划”以此重新规划。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="154"/>
        <source>nothing to change</source>
        <translation>无需更改</translation>
    </message>
    <message numerus="yes">
        <location filename="../../gpudesk/ui/plan/tab.py" line="201"/>
        <source>%n configuration(s) ranked, {0} rejected.</source>
        <translation>
            <numerusform>已排序 %n 个配置，排除 {0} 个。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="219"/>
        <source>Planning failed: {0}</source>
        <translation>规划失败：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="226"/>
        <source>&amp;Save changes</source>
        <translation>保存更改(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="226"/>
        <source>&amp;Save plan</source>
        <translation>保存规划(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="251"/>
        <source>Rechecking…</source>
        <translation>正在复核…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="253"/>
        <source>Recomputing the saved plan with this gpudesk to check its figures…</source>
        <translation>正在用当前版本的 gpudesk 重新计算已保存的规划，以核对其数字…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="259"/>
        <source>Saved figures differ from this gpudesk&apos;s: see the notice above the results.</source>
        <translation>已保存的数字与当前 gpudesk 的计算结果不同：请看结果上方的提示。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="261"/>
        <source>Saved figures match this gpudesk.</source>
        <translation>已保存的数字与当前 gpudesk 的计算结果一致。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="264"/>
        <source>The saved plan could not be rechecked; its saved figures are shown: {0}</source>
        <translation>无法复核已保存的规划，显示的是保存时的数字：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="284"/>
        <source>Showing the plan recomputed with this gpudesk; it is not saved until you press Save changes.</source>
        <translation>正在显示用当前 gpudesk 重新计算的规划；按“保存更改”之前不会保存。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="291"/>
        <source>Showing the figures as they were saved on {0}.</source>
        <translation>正在显示 {0} 保存时的数字。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="318"/>
        <source>mode {0}, precision {1}, {2} data, no dataset size, no library pins, ECC not required, up to {3} GPUs, market {4}</source>
        <translation>模式 {0}，精度 {1}，{2} 数据，无数据集大小，无库版本锁定，不要求 ECC，最多 {3} 块 GPU，市场 {4}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/controller.py" line="172"/>
        <source>Nothing to save, or the user database is not available.</source>
        <translation>没有可保存的内容，或用户数据库不可用。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/controller.py" line="179"/>
        <location filename="../../gpudesk/ui/plan/tab.py" line="125"/>
        <location filename="../../gpudesk/ui/plan/tab.py" line="134"/>
        <source>Untitled plan</source>
        <translation>未命名规划</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/controller.py" line="190"/>
        <source>Plan “{0}” saved.</source>
        <translation>规划“{0}”已保存。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/controller.py" line="198"/>
        <location filename="../../gpudesk/ui/plan/controller.py" line="209"/>
        <source>{0}: {1}</source>
        <translation>{0}：{1}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/tab.py" line="302"/>
        <source>Editing “{0}”: change the answers, press Plan, then Save changes.</source>
        <translation>正在编辑“{0}”：修改回答，按“规划”，然后“保存更改”。</translation>
    </message>
</context>
<context>
    <name>PlanView</name>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="79"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="81"/>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="299"/>
        <source>Rank</source>
        <translation>排名</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="300"/>
        <source>Configuration</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="301"/>
        <source>Interconnect</source>
        <translation>互连</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="302"/>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="303"/>
        <source>Memory per GPU</source>
        <translation>每 GPU 显存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="304"/>
        <source>Safe line</source>
        <translation>安全线</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="305"/>
        <source>Step time</source>
        <translation>单步时间</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="306"/>
        <source>Time to result</source>
        <translation>出结果时间</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="307"/>
        <source>Target met</source>
        <translation>达到目标</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="308"/>
        <source>3-year TCO (USD)</source>
        <translation>3 年 TCO（美元）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="194"/>
        <source>Memory breakdown</source>
        <extracomment>Columns of long text (interconnect, server): sized to their content up to WIDE_TEXT_MAX_WIDTH px, then elided (the full text is in the row&apos;s tooltip). Smallest heights (px) of the results panes, so a 1024 x 700 window shows the summary&apos;s first lines, four table rows and a readable chart; the panes scroll below that.</extracomment>
        <translation>显存构成</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="195"/>
        <source>TCO breakdown</source>
        <translation>TCO 构成</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="196"/>
        <source>Cost vs time to result</source>
        <translation>成本与出结果时间</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="200"/>
        <source>Rejected</source>
        <translation>已排除</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="201"/>
        <source>Latency vs throughput</source>
        <translation>延迟与吞吐量</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="204"/>
        <source>Serving side</source>
        <translation>服务侧</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="210"/>
        <source>How &amp;accurate is this?</source>
        <translation>准确度如何(&amp;A)？</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="211"/>
        <source>How close the memory figures come to published measured peaks</source>
        <translation>显存估算与公开的实测峰值有多接近</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="215"/>
        <source>Select a candidate to see its warnings and rationale.</source>
        <translation>选择一个候选方案以查看其警告和依据。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="216"/>
        <source>&amp;Save plan</source>
        <translation>保存规划(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="217"/>
        <source>Keep this plan in your saved plans</source>
        <translation>将此规划保存到已保存的规划中</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="219"/>
        <source>&amp;Change answers</source>
        <translation>修改回答(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="220"/>
        <source>Back to the wizard with these answers</source>
        <translation>带着这些回答返回向导</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="222"/>
        <source>Appl&amp;y this option</source>
        <translation>采用此选项(&amp;Y)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="223"/>
        <source>Write the selected option&apos;s micro-batch, sharding, recomputation and tensor-parallel degree into the wizard&apos;s answers</source>
        <translation>将所选选项的微批次、分片、重计算和张量并行度写入向导的答案</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="226"/>
        <source>Will it &amp;fit in an engine?…</source>
        <translation>在引擎中放得下吗(&amp;F)？…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="227"/>
        <source>Open &quot;Will it fit?&quot; with the selected serving option&apos;s model, GPU, tensor-parallel degree, context and concurrency, in the engine the answers name</source>
        <translation>用所选推理方案的模型、GPU、张量并行度、上下文和并发数打开“放得下吗？”，引擎取答案中指定的引擎</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="235"/>
        <source>Export the selected candidate&apos;s configuration sheet</source>
        <translation>导出所选候选方案的配置单</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="251"/>
        <source>Warnings and rationale of the selected candidate:</source>
        <translation>所选候选方案的警告和依据：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="305"/>
        <source>Replicas × TP</source>
        <translation>副本 × TP</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="306"/>
        <source>Sustained QPS</source>
        <translation>可持续 QPS</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="309"/>
        <source>TTFT / TPOT</source>
        <translation>TTFT / TPOT</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="309"/>
        <source>Settings the search chose</source>
        <translation>搜索选定的设置</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="310"/>
        <source>Why this rank</source>
        <translation>排名理由</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="311"/>
        <source>USD per million output tokens</source>
        <translation>每百万输出 token 美元</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="317"/>
        <source>3-year TCO over the output tokens served at the target QPS around the clock for the TCO years; unpriced options have none</source>
        <translation>3 年 TCO 除以在目标 QPS 下全天候运行 TCO 年限所服务的输出 token 数；无价格的选项没有此值</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="327"/>
        <source>{0} × TP{1}</source>
        <translation>{0} × TP{1}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="328"/>
        <source>{0:.1f} req/s</source>
        <translation>{0:.1f} 请求/秒</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="380"/>
        <source>* The search changed: {0}</source>
        <translation>* 搜索更改了：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="414"/>
        <source>Rejected ({0})</source>
        <translation>已排除（{0}）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="429"/>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="676"/>
        <source>single GPU</source>
        <translation>单 GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="330"/>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="453"/>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="550"/>
        <source>price unknown</source>
        <translation>价格未知</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="430"/>
        <source>{0}, {1}</source>
        <translation>{0}，{1}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="434"/>
        <source>no recompute</source>
        <translation>不重计算</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="434"/>
        <source>selective recompute</source>
        <translation>选择性重计算</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="435"/>
        <source>full recompute</source>
        <translation>完全重计算</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="510"/>
        <source>{0} — workload kind: {1}. Model: {2} ({3} B parameters{4}).</source>
        <translation>{0} — 工作负载类型：{1}。模型：{2}（{3} B 参数{4}）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="511"/>
        <source>Plan</source>
        <translation>规划</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="515"/>
        <source>, shape guessed</source>
        <translation>，模型结构为推测</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="518"/>
        <source>Before the search (the answers as given, one GPU, no sharding) the job needs {0}; each option below is computed with the settings the search chose.</source>
        <translation>搜索之前（按所填答案、单 GPU、不分片）作业需要 {0}；下列每个选项都按搜索选定的设置计算。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="527"/>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="531"/>
        <source>No configuration fits this requirement: {0}</source>
        <translation>没有配置能满足此要求：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="534"/>
        <source>No configuration fits this requirement; see the reasons below.</source>
        <translation>没有配置能满足此需求；原因见下文。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="543"/>
        <source>Top candidate: {0} as {1} replica(s) × TP{2}, sustains {3:.1f} req/s (target {4}), TTFT {5}, TPOT {6}, {7} per GPU against a safe line of {8}, 3-year TCO {9}, {10} per million output tokens.</source>
        <translation>首选：{0}，{1} 个副本 × TP{2}，可持续 {3:.1f} 请求/秒（目标 {4}），TTFT {5}，TPOT {6}，每 GPU {7}（安全线 {8}），3 年 TCO {9}，每百万输出 token {10}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="553"/>
        <source>Top candidate: {0} over {1}, {2} per GPU against a safe line of {3}, time to result {4}, 3-year TCO {5}.</source>
        <translation>首选候选方案：{0}，经由 {1}，每 GPU {2}，安全线 {3}，出结果时间 {4}，3 年 TCO {5}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="564"/>
        <source>The search changed your answers for it: {0}. “Apply this option” writes them into the wizard.</source>
        <translation>搜索为其更改了您的答案：{0}。“采用此选项”会将其写入向导。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="568"/>
        <source>Price unknown for {0} (ranked after priced options): select one and enter your quote on the right, or in the Catalog tab.</source>
        <translation>{0} 价格未知（排在有价格的选项之后）：选中它并在右侧或“目录”标签页中输入您的报价。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="575"/>
        <source>Serving side at {0} req/s: {1} as {2} replica(s) × TP{3}, sustains {4:.1f} req/s, TTFT {5}, TPOT {6}, 3-year TCO {7} (tab “Serving side”).</source>
        <translation>服务侧（{0} 请求/秒）：{1}，{2} 个副本 × TP{3}，可持续 {4:.1f} 请求/秒，TTFT {5}，TPOT {6}，3 年 TCO {7}（见“服务侧”标签页）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="583"/>
        <source>{0} × {1}, time to result {2}</source>
        <translation>{0} × {1}，出结果时间 {2}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="587"/>
        <source>Closest options beyond the GPU-count limit: {0}.</source>
        <translation>超出 GPU 数量上限的最接近方案：{0}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="590"/>
        <source>{0} × {1} late by {2}</source>
        <translation>{0} × {1} 超出截止时间 {2}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="593"/>
        <source>No candidate meets the deadline. Closest: {0}.</source>
        <translation>没有候选方案能满足截止时间。最接近的：{0}。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="595"/>
        <source>⚠ %n plan warning(s), listed first on the right: </source>
        <translation>
            <numerusform>⚠ %n 条规划警告，列在右侧最前面： </numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="606"/>
        <source>No configuration was rejected.</source>
        <translation>没有配置被排除。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="607"/>
        <source>Rejected configurations and why (each reason names its rule or datasheet):</source>
        <translation>被排除的配置及原因（每条原因都注明其规则或数据手册）：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="610"/>
        <source>{0} (any count)</source>
        <translation>{0}（任意数量）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="618"/>
        <source>Rent vs buy: no public on-demand cloud rate for this GPU.</source>
        <translation>租用还是购买：此 GPU 没有公开的按需云租用价。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="619"/>
        <source>Rent vs buy: {0}.</source>
        <translation>租用还是购买：{0}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="663"/>
        <source>Ranking: {0}</source>
        <translation>排序依据：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="665"/>
        <source>Plan warnings:</source>
        <translation>规划警告：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="671"/>
        <source>Replicas × TP: {0} × TP{1}; requests in flight per replica: {2}; engine: {3}</source>
        <translation>副本 × TP：{0} × TP{1}；每副本并发请求数：{2}；引擎：{3}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="673"/>
        <source>roofline estimate</source>
        <translation>屋顶线估算</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="675"/>
        <source>Sharding: {0}; recomputation: {1}; exposed communication: {2}</source>
        <translation>分片：{0}；重计算：{1}；未被掩盖的通信：{2}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="679"/>
        <source>Micro-batch {0} × {1} accumulation step(s) per optimizer step</source>
        <translation>每次优化器步：微批次 {0} × {1} 个梯度累积步</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="682"/>
        <source>Sustained QPS: {0:.1f}</source>
        <translation>可持续 QPS：{0:.1f}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="684"/>
        <source>Warnings:</source>
        <translation>警告：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="684"/>
        <source>Warnings: none</source>
        <translation>警告：无</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plan_view.py" line="687"/>
        <source>Rationale:</source>
        <translation>依据：</translation>
    </message>
</context>
<context>
    <name>PlanWizard</name>
    <message>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="100"/>
        <source>Plan name</source>
        <translation>规划名称</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="101"/>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="231"/>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="249"/>
        <source>Untitled plan</source>
        <translation>未命名规划</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="102"/>
        <source>Name under which the plan is saved</source>
        <translation>保存规划时使用的名称</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="104"/>
        <source>Notes (optional): context, sources, who asked</source>
        <translation>备注（可选）：背景、来源、提出人</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="105"/>
        <source>Free text kept with the requirement and printed on the sheet</source>
        <translation>随需求保存并打印在配置单上的自由文本</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="125"/>
        <source>&lt; &amp;Back</source>
        <translation>&lt; 上一步(&amp;B)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="126"/>
        <source>&amp;Next &gt;</source>
        <translation>下一步(&amp;N) &gt;</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="127"/>
        <source>&amp;Plan</source>
        <translation>规划(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="128"/>
        <source>Check every answer and rank the configurations (runs in the background). Enter in a field goes to the next page; Ctrl+Enter plans from any page.</source>
        <translation>检查所有回答并对配置排序（在后台运行）。在字段中按 Enter 进入下一页；在任意页按 Ctrl+Enter 开始规划。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="130"/>
        <source>&amp;Quick mode</source>
        <translation>快速模式(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="131"/>
        <source>Back to the four-field quick mode</source>
        <translation>返回四项快速模式</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="148"/>
        <source>Plan na&amp;me:</source>
        <translation>规划名称(&amp;M)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="152"/>
        <source>No&amp;tes:</source>
        <translation>备注(&amp;T)：</translation>
    </message>
    <message numerus="yes">
        <location filename="../../gpudesk/ui/plan/wizard.py" line="275"/>
        <source>%n more field(s) to fix: </source>
        <translation>
            <numerusform>还有 %n 个字段需要修正： </numerusform>
        </translation>
    </message>
</context>
<context>
    <name>PlansList</name>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="71"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="72"/>
        <source>Workload</source>
        <translation>工作负载</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="73"/>
        <source>Top candidate</source>
        <translation>首选候选方案</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="74"/>
        <source>Time to result</source>
        <translation>出结果时间</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="75"/>
        <source>3-year TCO (USD)</source>
        <translation>3 年 TCO（美元）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="76"/>
        <source>Updated (UTC)</source>
        <translation>更新时间（UTC）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="88"/>
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="88"/>
        <source>Show the saved plan&apos;s results</source>
        <translation>显示已保存规划的结果</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="89"/>
        <source>&amp;Edit…</source>
        <translation>编辑(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="89"/>
        <source>Load its answers into the wizard and re-plan</source>
        <translation>将其回答载入向导并重新规划</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="90"/>
        <source>Du&amp;plicate</source>
        <translation>复制(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="90"/>
        <source>Save a copy under a new name</source>
        <translation>以新名称保存一份副本</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="91"/>
        <source>&amp;Rename…</source>
        <translation>重命名(&amp;R)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="91"/>
        <source>Give the plan a new name</source>
        <translation>为规划取一个新名称</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="92"/>
        <source>&amp;Compare two</source>
        <translation>比较两个(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="92"/>
        <source>Select two plans (Ctrl+click) to see them side by side</source>
        <translation>选择两个规划（按住 Ctrl 单击）以并排查看</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="93"/>
        <source>&amp;Delete</source>
        <translation>删除(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="93"/>
        <source>Delete the selected plans (can be undone)</source>
        <translation>删除所选规划（可撤销）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="94"/>
        <source>&amp;Undo delete</source>
        <translation>撤销删除(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="94"/>
        <source>Bring back the plan deleted last</source>
        <translation>恢复最近删除的规划</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="96"/>
        <source>Export the selected plan&apos;s configuration sheet</source>
        <translation>导出所选规划的配置单</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="101"/>
        <source>Filter by name</source>
        <translation>按名称筛选</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="130"/>
        <source>{0}: {1}</source>
        <translation>{0}：{1}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="138"/>
        <source>The user database is not available; plans cannot be saved.</source>
        <translation>用户数据库不可用；无法保存规划。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="154"/>
        <source>unreadable plan: edit and plan again</source>
        <translation>规划无法读取：请编辑后重新规划</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="171"/>
        <source>No saved plans yet: run the wizard and press “Save plan”.</source>
        <translation>尚无已保存的规划：运行向导后按“保存规划”。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="173"/>
        <source>%n saved plan(s)</source>
        <translation>
            <numerusform>%n 个已保存的规划</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="232"/>
        <source>Rename plan</source>
        <translation>重命名规划</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="232"/>
        <source>New name:</source>
        <translation>新名称：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/plans_list.py" line="264"/>
        <source>Deleted {0}. Press Ctrl+Z or “Undo delete” to bring it back (until gpudesk closes).</source>
        <translation>已删除 {0}。按 Ctrl+Z 或“撤销删除”可恢复（在 gpudesk 关闭之前有效）。</translation>
    </message>
</context>
<context>
    <name>PriceEditor</name>
    <message>
        <location filename="../../gpudesk/ui/plan/price_editor.py" line="37"/>
        <source>your quote, e.g. 17,000</source>
        <translation>您的报价，例如 17,000</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/price_editor.py" line="40"/>
        <source>Your quote per GPU in US dollars. It is kept with your other prices (the Catalog tab&apos;s price field) and used by every plan until you remove it there.</source>
        <translation>您的每 GPU 报价（美元）。它与您的其他价格一起保存（即“目录”标签页中的价格字段），所有规划都会使用它，直到您在那里将其删除。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/price_editor.py" line="42"/>
        <source>Your &amp;price per GPU (USD):</source>
        <translation>您的每 GPU 价格（美元）(&amp;P)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/price_editor.py" line="44"/>
        <source>Use it and &amp;re-plan</source>
        <translation>使用并重新规划(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/price_editor.py" line="45"/>
        <location filename="../../gpudesk/ui/plan/price_editor.py" line="110"/>
        <source>Save this price as yours and plan again with it</source>
        <translation>将此价格保存为您的价格，并用它重新规划</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/price_editor.py" line="71"/>
        <source>Select a candidate to see the GPU price it used.</source>
        <translation>选择一个候选方案以查看其所用的 GPU 价格。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/price_editor.py" line="78"/>
        <source>{0}: price unknown — enter your quote in the Catalog tab or here. Its 3-year TCO cannot be computed, so it ranks after the priced options of its tier.</source>
        <translation>{0}：价格未知 — 请在“目录”标签页或此处输入您的报价。其 3 年 TCO 无法计算，因此排在同档次有价格的选项之后。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/price_editor.py" line="82"/>
        <source>With a quote below {0} per GPU it would rank higher.</source>
        <translation>如果每 GPU 报价低于 {0}，它的排名会更靠前。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/price_editor.py" line="85"/>
        <source>GPU price: N/A (plan saved by an older gpudesk)</source>
        <translation>GPU 价格：不可用（规划由旧版 gpudesk 保存）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/price_editor.py" line="106"/>
        <source>Unavailable: the user database is not open, so a price cannot be kept.</source>
        <translation>不可用：用户数据库未打开，无法保存价格。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/price_editor.py" line="108"/>
        <source>Type a price above 0 and at most {0} USD.</source>
        <translation>请输入大于 0 且不超过 {0} 美元的价格。</translation>
    </message>
</context>
<context>
    <name>PriceSourcesView</name>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="56"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="56"/>
        <source>Price (USD)</source>
        <translation>价格（美元）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="56"/>
        <source>Date</source>
        <translation>日期</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="57"/>
        <source>Provider / seller</source>
        <translation>供应商 / 卖家</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="57"/>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="80"/>
        <source>List price</source>
        <translation>标价</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="80"/>
        <source>Street price</source>
        <translation>市场价</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="80"/>
        <source>Published quote</source>
        <translation>公开报价</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="81"/>
        <source>Market report</source>
        <translation>市场报告</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="81"/>
        <source>Cloud, on demand</source>
        <translation>云，按需</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="82"/>
        <source>Cloud, committed</source>
        <translation>云，承诺使用</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="82"/>
        <source>Cloud, spot</source>
        <translation>云，竞价（spot）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="83"/>
        <source>Catalog price</source>
        <translation>目录价格</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="89"/>
        <source>${amount} per GPU-hour</source>
        <translation>每 GPU 小时 ${amount}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="91"/>
        <source>${amount} per system</source>
        <translation>每套系统 ${amount}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="93"/>
        <source>${amount} per GPU</source>
        <translation>每 GPU ${amount}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="95"/>
        <source> (range ${low}-${high})</source>
        <translation> （区间 ${low}-${high}）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="103"/>
        <source>Prices of {gpu}</source>
        <translation>{gpu} 的价格</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="122"/>
        <source>No public price or cloud rate found: enter your quote in the Catalog tab.</source>
        <translation>未找到公开价格或云租用价：请在“目录”标签页中输入您的报价。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="124"/>
        <source>Rent vs buy: no public on-demand cloud rate for this GPU.</source>
        <translation>租用还是购买：此 GPU 没有公开的按需云租用价。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="126"/>
        <source>Rent vs buy: {text}.</source>
        <translation>租用还是购买：{text}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="137"/>
        <source>Owning: no purchase price is known for this GPU; enter your quote to compare.</source>
        <translation>购买：这款 GPU 没有已知的购买价；请输入你的报价以便比较。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/catalog/price_sources.py" line="139"/>
        <source>Owning: {price} per GPU ({kind}, {date}) buys {hours} GPU-hours at this rate (the card alone; power, hosting and the server add to owning).</source>
        <translation>购买：每块 GPU {price}（{kind}，{date}），按此租价相当于 {hours} GPU 小时（仅显卡；电费、托管和服务器会增加购买成本）。</translation>
    </message>
</context>
<context>
    <name>ProcessModel</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="37"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="38"/>
        <source>PID</source>
        <translation>PID</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="39"/>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="40"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="41"/>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="42"/>
        <source>GPU memory (GiB)</source>
        <translation>显存 (GiB)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="43"/>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="44"/>
        <source>SM share (%)</source>
        <translation>SM 占比 (%)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="45"/>
        <source>Memory bandwidth share (%)</source>
        <translation>显存带宽占比 (%)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="46"/>
        <source>Container</source>
        <translation>容器</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="47"/>
        <source>Memory trend (GiB/min)</source>
        <translation>显存趋势 (GiB/分钟)</translation>
    </message>
</context>
<context>
    <name>ProcessTable</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="156"/>
        <source>Processes appear here while NVML monitoring runs (dmon logs and recordings carry no process list).</source>
        <translation>NVML 监控运行时，进程会显示在这里（dmon 日志和录制不含进程列表）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="174"/>
        <source>Terminate process {pid}…</source>
        <translation>终止进程 {pid}…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="174"/>
        <source>Kill process {pid}…</source>
        <translation>强制结束进程 {pid}…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="202"/>
        <source>Kill process {pid} ({command})? It gets no chance to save its work.</source>
        <translation>强制结束进程 {pid}（{command}）？它将无法保存工作。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="203"/>
        <source>Terminate process {pid} ({command})? It is asked to stop and may save its work.</source>
        <translation>终止进程 {pid}（{command}）？它会被要求停止，并可能保存工作。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="207"/>
        <source>Stop a GPU process</source>
        <translation>停止 GPU 进程</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="217"/>
        <source>Process {pid} ended ({signal}).</source>
        <translation>进程 {pid} 已结束（{signal}）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="220"/>
        <source>Sent {signal} to process {pid}; it is still running.</source>
        <translation>已向进程 {pid} 发送 {signal}；它仍在运行。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="232"/>
        <source>GPU {g}: processes could not be listed: {w}</source>
        <translation>GPU {g}：无法列出进程：{w}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/process_table.py" line="234"/>
        <source>{n} GPU processes.</source>
        <translation>{n} 个 GPU 进程。</translation>
    </message>
</context>
<context>
    <name>QuickMode</name>
    <message>
        <location filename="../../gpudesk/ui/plan/quick.py" line="34"/>
        <source>Quick check: does it fit?</source>
        <translation>快速检查：显存放得下吗？</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/quick.py" line="36"/>
        <source>Four answers for the common case. The chart shows memory per GPU against the chosen card&apos;s safe line as you type. For a full plan (time, cost, servers), continue in the wizard.</source>
        <translation>常见情况只需四个回答。输入时，图表显示每块 GPU 的显存占用与所选显卡安全线的对比。如需完整规划（时间、成本、服务器），请在向导中继续。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/quick.py" line="53"/>
        <source>Continue in the &amp;full wizard &gt;</source>
        <translation>在完整向导中继续(&amp;F) &gt;</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/quick.py" line="54"/>
        <source>Open the five questions with these answers filled in</source>
        <translation>打开五个问题，并填入这些回答</translation>
    </message>
</context>
<context>
    <name>Readout</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/readout.py" line="26"/>
        <source>Move the mouse over a plot to read the values at that moment.</source>
        <translation>将鼠标移到曲线图上可读取该时刻的数值。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/readout.py" line="44"/>
        <source>{v} % of link</source>
        <translation>占链路 {v} %</translation>
    </message>
</context>
<context>
    <name>RecheckNotice</name>
    <message>
        <location filename="../../gpudesk/ui/plan/recheck_notice.py" line="34"/>
        <source>S&amp;how recomputed plan</source>
        <translation>显示重新计算的规划(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/recheck_notice.py" line="35"/>
        <source>Show the plan recomputed with this gpudesk; it is not saved until you press Save changes</source>
        <translation>显示用当前 gpudesk 重新计算的规划；按“保存更改”之前不会保存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/recheck_notice.py" line="38"/>
        <source>&amp;Keep saved plan</source>
        <translation>保留已保存的规划(&amp;K)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/recheck_notice.py" line="39"/>
        <source>Keep showing the figures as they were saved</source>
        <translation>继续显示保存时的数字</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/recheck_notice.py" line="57"/>
        <source>Saved {0}. Recomputed with this gpudesk: {1}.</source>
        <translation>保存于 {0}。用当前 gpudesk 重新计算：{1}。</translation>
    </message>
</context>
<context>
    <name>RecordingsView</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="37"/>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="38"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="39"/>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="40"/>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="41"/>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="42"/>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="43"/>
        <source>Samples</source>
        <translation>样本数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="131"/>
        <source>Notes for the selected recording</source>
        <translation>所选录制的备注</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="135"/>
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="135"/>
        <source>Show the recording in the plots, statistics and findings</source>
        <translation>在曲线图、统计和发现中显示该录制</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="136"/>
        <source>Re&amp;play</source>
        <translation>回放(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="136"/>
        <source>Play the recording back through the live views</source>
        <translation>通过实时视图回放该录制</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="137"/>
        <source>Re&amp;name…</source>
        <translation>重命名(&amp;N)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="138"/>
        <source>Save &amp;notes</source>
        <translation>保存备注(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="139"/>
        <source>Export &amp;CSV…</source>
        <translation>导出 CSV(&amp;C)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="139"/>
        <source>All samples of the recording</source>
        <translation>该录制的全部样本</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="140"/>
        <source>Export plots as P&amp;NG…</source>
        <translation>将曲线图导出为 PNG(&amp;N)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="140"/>
        <source>Opens the recording and saves its plots</source>
        <translation>打开该录制并保存其曲线图</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="141"/>
        <source>&amp;Delete…</source>
        <translation>删除(&amp;D)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="141"/>
        <source>Delete the recording and its samples</source>
        <translation>删除该录制及其样本</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="151"/>
        <source>{s:g}× speed</source>
        <translation>{s:g}× 倍速</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="153"/>
        <source>Replay speed: 60× plays a minute of recording per second</source>
        <translation>回放速度：60× 表示每秒播放一分钟的录制</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="173"/>
        <source>Your gpudesk database could not be opened; no recordings to list.</source>
        <translation>无法打开你的 gpudesk 数据库；没有可列出的录制。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="189"/>
        <source>{n} recordings.</source>
        <translation>{n} 条录制。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="189"/>
        <source>1 recording.</source>
        <translation>1 个录制。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="221"/>
        <source>Rename recording</source>
        <translation>重命名录制</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="221"/>
        <source>New name:</source>
        <translation>新名称：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="238"/>
        <source>Notes saved.</source>
        <translation>备注已保存。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="245"/>
        <source>Delete recording</source>
        <translation>删除录制</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="246"/>
        <source>Delete recording #{n} &apos;{name}&apos; and all its samples? This cannot be undone.</source>
        <translation>删除录制 #{n}“{name}”及其全部样本？此操作无法撤销。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="252"/>
        <source>Deleting recording #{n}…</source>
        <translation>正在删除录制 #{n}…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="253"/>
        <source>Deleting</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="259"/>
        <source>Export recording as CSV</source>
        <translation>导出录制为 CSV</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="260"/>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="265"/>
        <source>Exporting recording #{n}…</source>
        <translation>正在导出录制 #{n}…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="266"/>
        <source>CSV export</source>
        <translation>CSV 导出</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="267"/>
        <source>Exported {p}.</source>
        <translation>已导出 {p}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="273"/>
        <source>Export plots as PNG</source>
        <translation>将曲线图导出为 PNG</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="274"/>
        <source>PNG images (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="281"/>
        <location filename="../../gpudesk/ui/monitor/recordings_view.py" line="282"/>
        <source>{w} failed: {e}</source>
        <translation>{w}失败：{e}</translation>
    </message>
</context>
<context>
    <name>ResultsView</name>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="268"/>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="324"/>
        <source>No diagnosis yet.</source>
        <translation>尚无诊断。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="278"/>
        <source>Copy report</source>
        <translation>复制报告</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="279"/>
        <source>Copy the whole diagnosis as text</source>
        <translation>将整个诊断以文本形式复制</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="281"/>
        <source>Copy JSON</source>
        <translation>复制 JSON</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="282"/>
        <source>Copy the diagnosis as JSON (the same as gpudesk oom diagnose --json)</source>
        <translation>将诊断以 JSON 形式复制（与 gpudesk oom diagnose --json 相同）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="310"/>
        <source>Values read from the input</source>
        <translation>从输入中读取的数值</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="339"/>
        <source>Unparseable input: nothing could be diagnosed.</source>
        <translation>无法解析的输入：无法进行诊断。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="360"/>
        <source>Engine: %1</source>
        <translation>引擎：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="362"/>
        <source>Framework: %1</source>
        <translation>框架：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="364"/>
        <source>message shape: %1</source>
        <translation>消息形式：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="367"/>
        <source>PyTorch era: %1</source>
        <translation>PyTorch 版本：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="369"/>
        <source>torch %1</source>
        <translation>torch %1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="371"/>
        <source>Python %1</source>
        <translation>Python %1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="373"/>
        <source>from %1</source>
        <translation>来自%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="374"/>
        <source>Diagnosis</source>
        <translation>诊断</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="382"/>
        <source>Partial result, the input lacks: %1</source>
        <translation>部分结果，输入缺少：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="410"/>
        <source>Child processes of the target (psutil)</source>
        <translation>目标的子进程（psutil）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="412"/>
        <source>PID</source>
        <translation>PID</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="412"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="412"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="412"/>
        <source>Host RSS</source>
        <translation>主机 RSS</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/results_view.py" line="418"/>
        <source>N/A</source>
        <translation>N/A</translation>
    </message>
</context>
<context>
    <name>SamplerWorker</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/sampler_worker.py" line="172"/>
        <source>Nothing to record: no source is running.</source>
        <translation>无可录制内容：没有正在运行的数据源。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/sampler_worker.py" line="175"/>
        <source>A recording is already running.</source>
        <translation>已有录制正在进行。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/sampler_worker.py" line="211"/>
        <source>Recording stopped: {m}</source>
        <translation>录制已停止：{m}</translation>
    </message>
</context>
<context>
    <name>SegmentMap</name>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_segments.py" line="140"/>
        <source>Segments to scale: blue allocated, grey free, orange the largest usable free block, red the failed request</source>
        <translation>按比例绘制的段：蓝色为已分配，灰色为空闲，橙色为最大的可用空闲块，红色为失败的请求</translation>
    </message>
</context>
<context>
    <name>SegmentMapCanvas</name>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_segments.py" line="83"/>
        <source>No segments in this snapshot.</source>
        <translation>此快照中没有段。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_segments.py" line="88"/>
        <source>failed request {0}</source>
        <translation>失败的请求 {0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_segments.py" line="95"/>
        <source>{0} {1}, {2} free</source>
        <translation>{0} {1}，空闲 {2}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_segments.py" line="111"/>
        <source>… and {0} smaller segments</source>
        <translation>… 以及 {0} 个更小的段</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_segments.py" line="122"/>
        <source>Segment at {0}: {1} ({2} pool, stream {3}); {4} allocated, {5} free in {6} pieces, largest {7}</source>
        <translation>位于 {0} 的段：{1}（{2} 池，流 {3}）；已分配 {4}，空闲 {5}，分为 {6} 块，最大 {7}</translation>
    </message>
</context>
<context>
    <name>ServeFitPage</name>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="82"/>
        <source>latest (e.g. 0.6.4, v0, v1, b4600)</source>
        <translation>最新版（例如 0.6.4、v0、v1、b4600）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="91"/>
        <source>GPUs of this kind; the tensor-parallel degree for vLLM, SGLang and TensorRT-LLM, the layer split for llama.cpp and Ollama</source>
        <translation>此型号 GPU 的数量；对 vLLM、SGLang 和 TensorRT-LLM 即张量并行度，对 llama.cpp 和 Ollama 即层的拆分</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="94"/>
        <source>As the card ships</source>
        <translation>按出厂状态</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="95"/>
        <source>On</source>
        <translation>开启</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="96"/>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="97"/>
        <source>ECC on a GDDR card keeps its check bits in the same memory: the driver then reports 1/16 less. Data-center cards (T4, A10, L4, L40S) ship with it on, GeForce and RTX workstation cards with it off; HBM cards lose nothing.</source>
        <translation>GDDR 显卡的 ECC 校验位占用同一块显存：开启后驱动报告的显存少 1/16。数据中心卡（T4、A10、L4、L40S）出厂时开启，GeForce 和 RTX 工作站卡出厂时关闭；HBM 显卡不受影响。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="103"/>
        <source>checkpoint (as published), bf16, fp8, int4-g128, or a GGUF type such as q4_k_m</source>
        <translation>checkpoint（按发布格式）、bf16、fp8、int4-g128，或 GGUF 类型如 q4_k_m</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="106"/>
        <source>Engine settings as the engine spells them, NAME=VALUE separated by spaces</source>
        <translation>按引擎自身写法填写的引擎设置，NAME=VALUE，以空格分隔</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="108"/>
        <source>&amp;Check</source>
        <translation>检查(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="112"/>
        <source>&amp;Engine:</source>
        <translation>引擎(&amp;E)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="112"/>
        <source>Engine &amp;version:</source>
        <translation>引擎版本(&amp;V)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="113"/>
        <source>&amp;Model:</source>
        <translation>模型(&amp;M)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="113"/>
        <source>&amp;GPU:</source>
        <translation>GPU(&amp;G)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="114"/>
        <source>GPU &amp;count:</source>
        <translation>GPU 数量(&amp;C)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="114"/>
        <source>ECC o&amp;n GDDR memory:</source>
        <translation>GDDR 显存 ECC(&amp;N)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="115"/>
        <source>&amp;Weight format:</source>
        <translation>权重格式(&amp;W)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="116"/>
        <source>Engine &amp;settings:</source>
        <translation>引擎设置(&amp;S)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="121"/>
        <source>Choose a model, a GPU and an engine, then press Check.</source>
        <translation>选择模型、GPU 和引擎，然后按“检查”。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="128"/>
        <source>Per GPU</source>
        <translation>每块 GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="128"/>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="133"/>
        <source>Memory per GPU</source>
        <translation>每块 GPU 的显存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="142"/>
        <source>Command line</source>
        <translation>命令行</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="143"/>
        <source>Co&amp;py</source>
        <translation>复制(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="144"/>
        <source>Copy the command line to the clipboard</source>
        <translation>将命令行复制到剪贴板</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="147"/>
        <source>Comman&amp;d:</source>
        <translation>命令(&amp;D)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="198"/>
        <source>The plan&apos;s model is not a decoder in the catalog; choose the model here.</source>
        <translation>方案中的模型不是目录中的解码器模型，请在此处选择模型。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="215"/>
        <source>The engine settings cannot be read: %1</source>
        <translation>无法读取引擎设置：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="229"/>
        <source>GPU count: %1</source>
        <translation>GPU 数量：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="250"/>
        <source>more GPUs (GPU count %1)</source>
        <translation>更多 GPU（GPU 数量 %1）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="252"/>
        <source>%1 (for the weights, Weight format %2 does the same)</source>
        <translation>%1（权重也可在“权重格式”中选 %2）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="257"/>
        <source>Cannot size this launch: %1</source>
        <translation>无法估算此次启动：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="267"/>
        <source>Fits: %1 on %2 x %3 (%4 GiB each).</source>
        <translation>放得下：%1，%2 × %3（每块 %4 GiB）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="268"/>
        <source>Does not fit: %1 on %2 x %3 (%4 GiB each).</source>
        <translation>放不下：%1，%2 × %3（每块 %4 GiB）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="276"/>
        <source>Host (CPU) memory</source>
        <translation>主机（CPU）内存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="283"/>
        <source>KV cache: %1 tokens in %2 blocks of %3.</source>
        <translation>KV 缓存：%1 个 token，共 %2 块，每块 %3 个。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="285"/>
        <source>Maximum concurrency for %1 tokens per request: %2x.</source>
        <translation>每个请求 %1 个 token 时的最大并发：%2 倍。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="287"/>
        <source>Longest context at %1 concurrent requests: %2 tokens.</source>
        <translation>%1 个并发请求时的最长上下文：%2 个 token。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="290"/>
        <source>Layers offloaded to the GPU: %1 of %2.</source>
        <translation>卸载到 GPU 的层：%1 / %2。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="294"/>
        <source>Smallest changes that make it fit:</source>
        <translation>能放得下的最小改动：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/serve_fit/page.py" line="311"/>
        <source>Will it fit?</source>
        <translation>放得下吗？</translation>
    </message>
</context>
<context>
    <name>ServingSide</name>
    <message>
        <location filename="../../gpudesk/ui/plan/serving_side.py" line="37"/>
        <source>Configuration</source>
        <extracomment>Serving options listed (the best first, as the planner ranked them).</extracomment>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/serving_side.py" line="37"/>
        <source>Replicas × TP</source>
        <translation>副本 × TP</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/serving_side.py" line="37"/>
        <source>Sustained QPS</source>
        <translation>可持续 QPS</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/serving_side.py" line="37"/>
        <source>TTFT / TPOT</source>
        <translation>TTFT / TPOT</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/serving_side.py" line="38"/>
        <source>Memory per GPU</source>
        <translation>每块 GPU 显存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/serving_side.py" line="38"/>
        <source>3-year TCO (USD)</source>
        <translation>3 年 TCO（美元）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/serving_side.py" line="38"/>
        <source>USD per million output tokens</source>
        <translation>每百万输出 token 美元</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/serving_side.py" line="67"/>
        <source>The same model served at {0} requests/s, sized on its own GPUs (the training options are in the table above).</source>
        <translation>同一模型以 {0} 请求/秒提供服务，按其自己的 GPU 规划（训练方案见上方表格）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/serving_side.py" line="69"/>
        <source>No configuration serves the model at the target QPS; see the plan warnings.</source>
        <translation>没有配置能以目标 QPS 提供该模型服务；请查看规划警告。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/serving_side.py" line="74"/>
        <source>{0:.1f} req/s</source>
        <translation>{0:.1f} 请求/秒</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/serving_side.py" line="77"/>
        <source>price unknown</source>
        <translation>价格未知</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/serving_side.py" line="88"/>
        <source>{0} × TP{1}</source>
        <translation>{0} × TP{1}</translation>
    </message>
</context>
<context>
    <name>SheetCharts</name>
    <message>
        <location filename="../../gpudesk/ui/plan/sheet_charts.py" line="116"/>
        <source>price unknown</source>
        <translation>价格未知</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/sheet_charts.py" line="72"/>
        <source>Safe line</source>
        <extracomment>Options drawn beside the chosen one.</extracomment>
        <translation>安全线</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/sheet_charts.py" line="161"/>
        <source>Memory per GPU against the safe line</source>
        <translation>每 GPU 显存与安全线</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/sheet_charts.py" line="162"/>
        <source>3-year TCO</source>
        <translation>3 年 TCO</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/sheet_charts.py" line="164"/>
        <source>thousand USD</source>
        <translation>千美元</translation>
    </message>
</context>
<context>
    <name>ShellMenus</name>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="57"/>
        <source>New plan (blank, stated defaults)</source>
        <translation>新建方案（空白，使用标明的默认值）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="58"/>
        <source>Open a requirement profile</source>
        <translation>打开需求配置文件</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="59"/>
        <source>Save the wizard&apos;s answers as a profile</source>
        <translation>将向导的答案保存为配置文件</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="60"/>
        <source>Export the configuration sheet of the selected option</source>
        <translation>导出所选选项的配置单</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="61"/>
        <source>Plan, Catalog, Monitor, OOM doctor</source>
        <translation>规划、目录、监控、OOM 诊断</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="62"/>
        <source>User guide</source>
        <translation>用户指南</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="63"/>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="64"/>
        <source>Press the button or field with that letter underlined</source>
        <translation>按下带该下划线字母的按钮或字段</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="170"/>
        <source>&amp;New plan</source>
        <translation>新建方案(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="171"/>
        <source>&amp;Open profile…</source>
        <translation>打开配置文件(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="173"/>
        <source>&amp;Save profile…</source>
        <translation>保存配置文件(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="175"/>
        <source>&amp;Export sheet…</source>
        <translation>导出配置单(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="176"/>
        <source>&amp;Recent profiles</source>
        <translation>最近的配置文件(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="179"/>
        <source>&amp;User guide</source>
        <translation>用户指南(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="181"/>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="182"/>
        <source>Save a &amp;diagnostics bundle…</source>
        <translation>保存诊断包(&amp;D)…</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="146"/>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="149"/>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="149"/>
        <source>Action</source>
        <translation>操作</translation>
    </message>
</context>
<context>
    <name>SnapshotTables</name>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_tables.py" line="60"/>
        <source>Bytes alive</source>
        <translation>存活字节数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_tables.py" line="60"/>
        <source>Allocations</source>
        <translation>分配次数</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_tables.py" line="60"/>
        <location filename="../../gpudesk/ui/oom/snapshot_tables.py" line="61"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_tables.py" line="60"/>
        <location filename="../../gpudesk/ui/oom/snapshot_tables.py" line="61"/>
        <source>Frame</source>
        <translation>栈帧</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_tables.py" line="61"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_tables.py" line="61"/>
        <source>Created at event</source>
        <translation>创建于事件</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_tables.py" line="62"/>
        <source>Top frames</source>
        <translation>占用最多的栈帧</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_tables.py" line="63"/>
        <source>Top allocations</source>
        <translation>最大的分配</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_tables.py" line="66"/>
        <source>Select a row to see where the allocation was made.</source>
        <translation>选择一行以查看该分配发生的位置。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_tables.py" line="77"/>
        <source>before the trace</source>
        <translation>在跟踪开始之前</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_tables.py" line="91"/>
        <source>(no stack recorded)</source>
        <translation>（未记录调用栈）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_tables.py" line="107"/>
        <source>No stack was recorded for this allocation (it was made before the history started, or with context=None).</source>
        <translation>此分配没有记录调用栈（它发生在历史记录开始之前，或使用了 context=None）。</translation>
    </message>
</context>
<context>
    <name>SnapshotTimeline</name>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_timeline.py" line="29"/>
        <source>No snapshot opened.</source>
        <translation>未打开快照。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_timeline.py" line="36"/>
        <source>trace event (index)</source>
        <translation>跟踪事件（序号）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_timeline.py" line="37"/>
        <source>memory (GiB)</source>
        <translation>显存 (GiB)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_timeline.py" line="43"/>
        <source>Allocated and reserved memory after each allocator event, in GiB; drag to pan, wheel to zoom</source>
        <translation>每次分配器事件后的已分配和已保留显存，单位 GiB；拖动可平移，滚轮可缩放</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_timeline.py" line="47"/>
        <source>allocated (GiB)</source>
        <translation>已分配 (GiB)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_timeline.py" line="49"/>
        <source>reserved (GiB)</source>
        <translation>已保留 (GiB)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_timeline.py" line="67"/>
        <source>peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_timeline.py" line="72"/>
        <source>OOM</source>
        <translation>OOM</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_timeline.py" line="76"/>
        <source>This snapshot has no trace events on GPU {0}: allocator history was not recorded.</source>
        <translation>此快照在 GPU {0} 上没有跟踪事件：未记录分配器历史。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_timeline.py" line="79"/>
        <source>Only one trace event on GPU {0}: nothing to draw over time. Allocated {1}, reserved {2} after it.</source>
        <translation>GPU {0} 上只有一个跟踪事件：没有随时间变化的曲线可画。该事件后已分配 {1}，保留 {2}。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_timeline.py" line="83"/>
        <source> (up to the OOM)</source>
        <translation>（截至 OOM）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_timeline.py" line="84"/>
        <source>Trace events #0 to #{0} of the {1} on GPU {2}{3}; peak allocated {4}, peak reserved {5}.</source>
        <translation>GPU {2} 上 {1} 个跟踪事件中的第 #0 至 #{0} 个{3}；已分配峰值 {4}，保留峰值 {5}。</translation>
    </message>
</context>
<context>
    <name>SnapshotView</name>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="60"/>
        <source>A .pickle from torch.cuda.memory._dump_snapshot() or the _snapshot() dict saved as JSON</source>
        <translation>由 torch.cuda.memory._dump_snapshot() 生成的 .pickle，或保存为 JSON 的 _snapshot() 字典</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="82"/>
        <source>Open a memory snapshot to see what it shows.</source>
        <translation>打开一个显存快照以查看其内容。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="89"/>
        <source>The explanation and the ranked causes appear here.</source>
        <translation>解释和按可能性排序的原因显示在这里。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="59"/>
        <source>Op&amp;en snapshot…</source>
        <translation>打开快照(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="64"/>
        <source>GP&amp;U:</source>
        <translation>GPU(&amp;U)：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="76"/>
        <source>Cancel &amp;reading</source>
        <translation>取消读取(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="94"/>
        <source>T&amp;imeline</source>
        <translation>时间线(&amp;I)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="95"/>
        <source>&amp;Segments</source>
        <translation>段(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="96"/>
        <source>Top &amp;allocations</source>
        <translation>最大的分配(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="105"/>
        <source>Open memory snapshot</source>
        <translation>打开显存快照</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="106"/>
        <source>Memory snapshots (*.pickle *.pkl *.json *.gz);;All files (*)</source>
        <translation>显存快照 (*.pickle *.pkl *.json *.gz);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="118"/>
        <source>Opening %p%</source>
        <translation>正在打开 %p%</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="122"/>
        <source>Opening {0} …</source>
        <translation>正在打开 {0} …</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="168"/>
        <source>Opening the snapshot was cancelled.</source>
        <translation>已取消打开快照。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="172"/>
        <source>The snapshot could not be opened: {0}</source>
        <translation>无法打开快照：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="194"/>
        <source>{0}: {1}, layout {2}, {3} trace events on all GPUs.</source>
        <translation>{0}：{1}，格式版本 {2}，所有 GPU 共 {3} 个跟踪事件。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="197"/>
        <source>{0}: layout {1}, {2} trace events on all GPUs.</source>
        <translation>{0}：格式版本 {1}，所有 GPU 共 {2} 个跟踪事件。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="202"/>
        <source>GPU {0}</source>
        <translation>GPU {0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="202"/>
        <source> (OOM)</source>
        <translation> (OOM)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="216"/>
        <source>This snapshot holds no segments and no trace events.</source>
        <translation>此快照中既没有段也没有跟踪事件。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="222"/>
        <source>Causes, most likely first:</source>
        <translation>原因（最可能的在前）：</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/snapshot_view.py" line="227"/>
        <source>Fix: {0}</source>
        <translation>修复：{0}</translation>
    </message>
</context>
<context>
    <name>SpanChart</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/span_chart.py" line="62"/>
        <source>Timeline of the findings&apos; spans</source>
        <translation>各发现区间的时间线</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/span_chart.py" line="82"/>
        <source>GPU {gpu}</source>
        <translation>GPU {gpu}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/span_chart.py" line="83"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/span_chart.py" line="125"/>
        <source>start</source>
        <translation>开始</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/span_chart.py" line="127"/>
        <source>+{length}</source>
        <translation>+{length}</translation>
    </message>
</context>
<context>
    <name>Startup</name>
    <message>
        <location filename="../../gpudesk/ui/startup.py" line="164"/>
        <source>Start-up step “{0}” failed: {1}</source>
        <extracomment>``gpudesk.store`` and the modules that register migration sets (see gpudesk.store.db._import_feature_sets).</extracomment>
        <translation>启动步骤“{0}”失败：{1}</translation>
    </message>
</context>
<context>
    <name>StatsPanel</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="46"/>
        <source>&amp;Select span…</source>
        <translation>选择区间(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="49"/>
        <source>Show a span on the utilization plot; drag its edges over, for example, three epochs. The table then shows the median, p5 and p95 of each metric over that span.</source>
        <translation>在利用率曲线图上显示一个区间；拖动其边缘以覆盖例如三个 epoch。表格随后显示该区间内每个指标的中位数、p5 和 p95。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="52"/>
        <source>Statistics of the visible range.</source>
        <translation>可见范围的统计。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="61"/>
        <source>Each cell: median (p5 – p95) over the span; hover for sample counts.</source>
        <translation>每个单元格：区间内的中位数（p5 – p95）；悬停可查看样本数。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="69"/>
        <source>Computing statistics for {span}…</source>
        <translation>正在计算 {span} 的统计…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="72"/>
        <source>Statistics could not be computed: {m}</source>
        <translation>无法计算统计：{m}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="81"/>
        <source>GPU util</source>
        <translation>GPU 利用率</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="81"/>
        <source>Mem-ctrl util</source>
        <translation>显存控制器利用率</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="82"/>
        <source>Memory used</source>
        <translation>已用显存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="82"/>
        <source>PCIe RX</source>
        <translation>PCIe RX</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="82"/>
        <source>PCIe TX</source>
        <translation>PCIe TX</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="83"/>
        <source>Power</source>
        <translation>功耗</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="83"/>
        <source>Temp</source>
        <translation>温度</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="83"/>
        <source>SM clock</source>
        <translation>SM 时钟</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="84"/>
        <source>% of link</source>
        <translation>占链路 %</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="101"/>
        <source>Span {span}: median (p5 – p95) per GPU.</source>
        <translation>区间 {span}：每块 GPU 的中位数（p5 – p95）。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="118"/>
        <source>N/A</source>
        <translation>不可用</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="126"/>
        <source>N/A: this source does not report the metric.</source>
        <translation>不可用：此数据源不报告该指标。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="127"/>
        <source>{n} readable samples, {k} missing</source>
        <translation>{n} 个可读样本，缺失 {k} 个</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/stats_panel.py" line="129"/>
        <source>N/A: no readable sample in the span. </source>
        <translation>不可用：区间内没有可读样本。 </translation>
    </message>
</context>
<context>
    <name>TargetPicker</name>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="117"/>
        <source>Rel&amp;oad</source>
        <translation>重新加载(&amp;O)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="118"/>
        <source>Read the processes using each GPU again (NVML)</source>
        <translation>重新读取每个 GPU 上的进程（NVML）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="120"/>
        <source>Processes not read yet.</source>
        <translation>尚未读取进程。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="128"/>
        <source>PID</source>
        <translation>PID</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="128"/>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="128"/>
        <source>GPU memory</source>
        <translation>GPU 显存</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="128"/>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="128"/>
        <source>Command line</source>
        <translation>命令行</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="135"/>
        <source>Processes using each GPU, from NVML; select one to look inside it</source>
        <translation>来自 NVML 的每个 GPU 上的进程；选择一个以查看其内部</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="151"/>
        <source>GPU &amp;processes</source>
        <translation>GPU 进程(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="152"/>
        <source>Launch a &amp;command</source>
        <translation>启动命令(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="153"/>
        <source>Paste or drop &amp;text</source>
        <translation>粘贴或拖放文本(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="206"/>
        <source>Reading GPU processes …</source>
        <translation>正在读取 GPU 进程 …</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="235"/>
        <source>processes not readable: %1</source>
        <translation>无法读取进程：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="245"/>
        <source>%1 GPU(s), %2 process(es).</source>
        <translation>%1 个 GPU，%2 个进程。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="271"/>
        <source>name N/A</source>
        <translation>名称 N/A</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="276"/>
        <source>GPU %1 · %2 · %3 total · %4 used by %5 process(es)</source>
        <translation>GPU %1 · %2 · 共 %3 · %5 个进程使用 %4</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="287"/>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="291"/>
        <source>N/A</source>
        <translation>N/A</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="295"/>
        <source>GPU memory: %1</source>
        <translation>GPU 显存：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="321"/>
        <location filename="../../gpudesk/ui/oom/target_picker.py" line="322"/>
        <source>Cannot list GPU processes: %1</source>
        <translation>无法列出 GPU 进程：%1</translation>
    </message>
</context>
<context>
    <name>TcoChart</name>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="82"/>
        <source>3-year TCO (thousand USD)</source>
        <translation>3 年 TCO（千美元）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="130"/>
        <source>price unknown</source>
        <translation>价格未知</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="135"/>
        <source>Unpriced: known costs only, outlined</source>
        <translation>无价格：仅以轮廓显示已知成本</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="154"/>
        <source>server (host) price unknown — the bar shows the known costs only, without the servers</source>
        <translation>服务器（主机）价格未知——柱形只显示已知成本，不含服务器</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="156"/>
        <source>GPU price unknown — the bar shows the known costs only, without the GPUs</source>
        <translation>GPU 价格未知——柱形只显示已知成本，不含 GPU</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/plan/charts.py" line="157"/>
        <source>GPU and server (host) prices unknown — the bar shows the known costs only, without the GPUs and the servers</source>
        <translation>GPU 和服务器（主机）价格未知——柱形只显示已知成本，不含 GPU 和服务器</translation>
    </message>
    <message numerus="yes">
        <location filename="../../gpudesk/ui/plan/charts.py" line="145"/>
        <source>%n candidate(s) without a TCO figure are not drawn.</source>
        <translation>
            <numerusform>%n 个没有 TCO 数值的候选方案未绘制。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TextInput</name>
    <message>
        <location filename="../../gpudesk/ui/oom/text_input.py" line="135"/>
        <source>Paste an out-of-memory message, a torch.cuda.memory_summary() table, a TensorFlow, JAX or vLLM error here, or drop a log file onto this tab.</source>
        <translation>在此粘贴显存不足消息、torch.cuda.memory_summary() 表格、TensorFlow、JAX 或 vLLM 错误，或将日志文件拖放到此标签页。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/text_input.py" line="149"/>
        <source>&amp;Diagnose</source>
        <translation>诊断(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/text_input.py" line="150"/>
        <source>Parse the text and rank the likely causes (Ctrl+Return)</source>
        <translation>解析文本并对可能的原因排序（Ctrl+Return）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/text_input.py" line="153"/>
        <source>&amp;Open file…</source>
        <translation>打开文件(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/text_input.py" line="155"/>
        <source>Read a log file (its last %1 are used)</source>
        <translation>读取日志文件（使用其最后 %1）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/text_input.py" line="158"/>
        <source>Clear te&amp;xt</source>
        <translation>清除文本(&amp;X)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/text_input.py" line="188"/>
        <source>pasted text</source>
        <translation>粘贴的文本</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/text_input.py" line="192"/>
        <source>Reading %1 …</source>
        <translation>正在读取 %1 …</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/text_input.py" line="208"/>
        <source>%1 is not a text log: %2</source>
        <translation>%1 不是文本日志：%2</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/text_input.py" line="215"/>
        <source>%1: %2, only the last %3 are shown and diagnosed.</source>
        <translation>%1：%2，只显示并诊断最后 %3。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/text_input.py" line="222"/>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/text_input.py" line="228"/>
        <source>Cannot read the file: %1</source>
        <translation>无法读取文件：%1</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/text_input.py" line="248"/>
        <source>Open a log, an error file or a memory snapshot</source>
        <translation>打开日志、错误文件或显存快照</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/oom/text_input.py" line="249"/>
        <source>Logs and text (*.log *.txt *.out *.err);;Memory snapshots (*.pickle *.pkl *.json *.gz);;All files (*)</source>
        <translation>日志和文本 (*.log *.txt *.out *.err);;显存快照 (*.pickle *.pkl *.json *.gz);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>ThresholdsDialog</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/thresholds_editor.py" line="140"/>
        <source>Rule thresholds</source>
        <translation>规则阈值</translation>
    </message>
</context>
<context>
    <name>ThresholdsEditor</name>
    <message>
        <location filename="../../gpudesk/ui/monitor/thresholds_editor.py" line="87"/>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/thresholds_editor.py" line="88"/>
        <source>&amp;Defaults</source>
        <translation>默认值(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/monitor/thresholds_editor.py" line="131"/>
        <source>Saved {n} changed threshold(s) to {file}.</source>
        <translation>已将 {n} 个修改过的阈值保存到 {file}。</translation>
    </message>
</context>
<context>
    <name>WizardPage</name>
    <message>
        <location filename="../../gpudesk/ui/plan/wizard.py" line="64"/>
        <source>Cost assumptions (TCO); every default names its source in its tooltip</source>
        <translation>成本假设（TCO）；每个默认值的来源见其工具提示</translation>
    </message>
</context>
<context>
    <name>self.window</name>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="212"/>
        <source>Open requirement profile</source>
        <translation>打开需求配置文件</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="213"/>
        <source>TOML profiles (*.toml)</source>
        <translation>TOML 配置文件 (*.toml)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="229"/>
        <source>No plan to export yet: answer the wizard and press Plan.</source>
        <translation>还没有可导出的方案：请回答向导并按“规划”。</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="250"/>
        <source>The user guide {0} could not be read: {1}</source>
        <translation>无法读取用户指南 {0}：{1}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="251"/>
        <source>gpudesk user guide</source>
        <translation>gpudesk 用户指南</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="261"/>
        <source>Save a diagnostics bundle</source>
        <translation>保存诊断包</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="263"/>
        <source>Zip archives (*.zip)</source>
        <translation>Zip 压缩包 (*.zip)</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="269"/>
        <source>The diagnostics bundle was not saved: {0}</source>
        <translation>诊断包未保存：{0}</translation>
    </message>
    <message>
        <location filename="../../gpudesk/ui/shell_menus.py" line="272"/>
        <source>Diagnostics bundle saved: {0}. Attach it to your report.</source>
        <translation>诊断包已保存：{0}。请将其附在问题报告中。</translation>
    </message>
</context>
</TS>
