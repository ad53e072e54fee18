"""The tabs of Prazos (pages/deadlines.py): Vencidos e a vencer, Linha do tempo, Mapa de calor, Recursos,
Cancelamento automático, Tribunal Marítimo, Remoções e saldos, Registrar (Registrar entrega) and Exportar."""
